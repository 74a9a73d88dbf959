#!/usr/bin/env node
// Runs groundkit's pytest suite, or one Python script, INSIDE Pyodide (CPython compiled to
// WebAssembly) in Node.js, offline. The Pyodide runtime comes from node_modules/pyodide (npm,
// pinned in package-lock.json); every Python package, groundkit included, is a local wheel
// (build/dist, build/wheels: made by setup.sh) unpacked into Pyodide's in-memory site-packages.
// The exit code is pytest's (0 ok, 1 failures, 2 interrupted, 3 internal, 4 usage, 5 no tests)
// or the script's; 99 means this runner itself failed.
//
//   node web/pyodide/run.mjs [OPTIONS] [-- PYTEST_ARGS...]     # pytest.main(PYTEST_ARGS)
//   node web/pyodide/run.mjs [OPTIONS] --script FILE [-- ARGS...] # runs FILE with sys.argv
// Options:
//   --project DIR     mounted (NODEFS) at its own absolute path, made the cwd (default: the repo)
//   --wheels DIR      a folder of .whl files to install (repeatable; default build/dist, build/wheels)
//   --mount DIR       another host folder mounted at its own absolute path (repeatable)
//   --timings         print load/install/run times to stderr
// Host folders keep their absolute paths inside Pyodide, so paths stored in a collection (a
// document's root, the index dir) mean the same file in both runtimes.
// Environment: CI, PYTHONHASHSEED, PYTHONWARNINGS, PYTEST_*, HYPOTHESIS_* and GROUNDKIT_* are
// forwarded (Pyodide does not see the host's environment otherwise). The shared data folder
// ($GROUNDKIT_SHARED_DATA, else <repo>/../shared/data) is mounted when it exists and
// GROUNDKIT_SHARED_DATA is set to it inside Pyodide. PYODIDE_DIR selects another Pyodide build.
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO = path.resolve(HERE, "..", "..");
const FORWARD_ENV = /^(CI|PYTHONHASHSEED|PYTHONWARNINGS|PYTEST_\w+|HYPOTHESIS_\w+|GROUNDKIT_\w+)$/;

function parseArgs(argv) {
  const o = { project: REPO, wheelDirs: [], mounts: [], script: null, timings: false, rest: [] };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === "--") { o.rest = argv.slice(i + 1); break; }
    else if (a === "--project") o.project = value();
    else if (a === "--wheels") o.wheelDirs.push(value());
    else if (a === "--mount") o.mounts.push(value());
    else if (a === "--script") o.script = value();
    else if (a === "--timings") o.timings = true;
    else { o.rest = argv.slice(i); break; } // anything else goes to pytest / the script
  }
  if (!o.wheelDirs.length) o.wheelDirs = ["build/dist", "build/wheels"].map((d) => path.join(HERE, d));
  return o;
}

// Raw byte-for-byte stdout/stderr, so pytest's output looks as under CPython. fs.writeSync can
// throw EAGAIN on a non-blocking pipe (CI log collectors): retry; a closed pipe ends the output.
const sink = (fd) => ({
  isatty: false,
  write(buf) {
    for (let off = 0; off < buf.length; ) {
      try { off += fs.writeSync(fd, buf, off); }
      catch (e) { if (e.code === "EPIPE") break; if (e.code !== "EAGAIN") throw e; }
    }
    return buf.length;
  },
});

const isDir = (p) => fs.statSync(p, { throwIfNoEntry: false })?.isDirectory() ?? false;

function sharedDataDir() {
  const explicit = process.env.GROUNDKIT_SHARED_DATA;
  const candidate = path.resolve(explicit || path.join(REPO, "..", "shared", "data"));
  return isDir(candidate) ? fs.realpathSync(candidate) : null;
}

async function importLoadPyodide() {
  const dir = process.env.PYODIDE_DIR
    ? path.resolve(process.env.PYODIDE_DIR)
    : path.join(HERE, "node_modules", "pyodide");
  const entry = path.join(dir, "pyodide.mjs");
  if (!fs.existsSync(entry)) throw new Error(`${entry} is missing: run \`npm ci\` in ${HERE}`);
  return (await import(pathToFileURL(entry).href)).loadPyodide;
}

const t = { start: performance.now() };
const ms = (a, b) => `${(b - a).toFixed(0)} ms`;

try {
  const opts = parseArgs(process.argv.slice(2));
  const project = fs.realpathSync(path.resolve(opts.project));
  if (!isDir(project)) throw new Error(`project dir not found: ${project}`);

  const wheels = [];
  for (const d of opts.wheelDirs) {
    const dir = path.resolve(d);
    if (!isDir(dir)) throw new Error(`wheel dir not found: ${dir} (run web/pyodide/setup.sh)`);
    for (const f of fs.readdirSync(dir).sort()) if (f.endsWith(".whl")) wheels.push(path.join(dir, f));
  }
  if (!wheels.some((w) => path.basename(w).startsWith("groundkit-")))
    throw new Error("no groundkit wheel among the wheel dirs (run web/pyodide/setup.sh)");

  const env = {
    HOME: "/home/pyodide",
    // hypothesis would otherwise write .hypothesis/ into the host-mounted project
    HYPOTHESIS_STORAGE_DIRECTORY: "/tmp/.hypothesis",
    ...Object.fromEntries(Object.entries(process.env).filter(([k]) => FORWARD_ENV.test(k))),
  };
  const shared = sharedDataDir();
  if (shared) env.GROUNDKIT_SHARED_DATA = shared;
  else delete env.GROUNDKIT_SHARED_DATA; // a host path that is not mounted would mislead

  const loadPyodide = await importLoadPyodide();
  t.loadStart = performance.now();
  const py = await loadPyodide({ env });
  t.loaded = performance.now();
  py.setStdout(sink(1));
  py.setStderr(sink(2));

  // Host folders at their own absolute paths (nested mounts: parents first).
  const mounts = [project, ...(shared ? [shared] : []), ...opts.mounts.map((m) => fs.realpathSync(m))];
  for (const dir of [...new Set(mounts)].sort()) {
    if (!isDir(dir)) throw new Error(`cannot mount ${dir}: not a folder`);
    py.FS.mkdirTree(dir);
    py.FS.mount(py.FS.filesystems.NODEFS, { root: dir }, dir);
  }
  const wheelDirs = [...new Set(wheels.map((w) => path.dirname(w)))];
  const inPyodide = [];
  wheelDirs.forEach((d, i) => {
    const m = `/mnt/wheels/${i}`;
    py.FS.mkdirTree(m);
    py.FS.mount(py.FS.filesystems.NODEFS, { root: d }, m);
    for (const w of wheels) if (path.dirname(w) === d) inPyodide.push(`${m}/${path.basename(w)}`);
  });

  py.globals.set("WHEELS", py.toPy(inPyodide));
  py.globals.set("PROJECT", project);
  py.runPython(`
import importlib, os, shutil, site, sys, zipfile
sys.dont_write_bytecode = True          # no __pycache__ in the host-mounted tree
SITE = site.getsitepackages()[0]        # /lib/python3.X/site-packages (in-memory)

def install_wheel(path):
    name = os.path.basename(path)
    if not name.endswith("-none-any.whl"):
        raise SystemExit(f"runner: {name} is not a pure-Python wheel")
    with zipfile.ZipFile(path) as z:
        z.extractall(SITE)
        tops = {n.split("/", 1)[0] for n in z.namelist()}
    for top in tops:                    # <name>.data/{purelib,platlib} -> site-packages
        if top.endswith(".data"):
            for sub in ("purelib", "platlib"):
                src = os.path.join(SITE, top, sub)
                if os.path.isdir(src):
                    shutil.copytree(src, SITE, dirs_exist_ok=True)
            shutil.rmtree(os.path.join(SITE, top))
    for top in tops:                    # recorded as installed, so entry points and metadata work
        if top.endswith(".dist-info"):
            with open(os.path.join(SITE, top, "INSTALLER"), "w") as f:
                f.write("groundkit-pyodide-runner\\n")

for w in WHEELS:
    install_wheel(w)
importlib.invalidate_caches()
os.chdir(PROJECT)
`);
  t.installed = performance.now();

  let rc;
  if (opts.script) {
    py.globals.set("SCRIPT", fs.realpathSync(path.resolve(opts.script)));
    py.globals.set("ARGS", py.toPy(opts.rest));
    rc = await py.runPythonAsync(`
import runpy, sys, traceback
sys.argv = [SCRIPT, *ARGS]
try:
    runpy.run_path(SCRIPT, run_name="__main__")
    code = 0
except SystemExit as exc:               # as python3 would: int as is, None 0, else print it, 1
    code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
    if not isinstance(exc.code, int) and exc.code is not None:
        print(exc.code, file=sys.stderr)
except BaseException:
    traceback.print_exc()
    code = 1
sys.stdout.flush(); sys.stderr.flush()
code
`);
  } else {
    py.globals.set("PYTEST_ARGS", py.toPy(["-p", "no:cacheprovider", ...opts.rest]));
    // runPythonAsync: where the runtime has JSPI, tests may call asyncio.run().
    rc = await py.runPythonAsync("import pytest\nint(pytest.main(list(PYTEST_ARGS)))");
  }
  t.done = performance.now();
  if (opts.timings) {
    process.stderr.write(
      `runner: pyodide ${py.version}; loadPyodide ${ms(t.loadStart, t.loaded)}; ` +
        `install ${wheels.length} wheels ${ms(t.loaded, t.installed)}; ` +
        `${opts.script ? "script" : "pytest"} ${ms(t.installed, t.done)}; ` +
        `total ${ms(t.start, t.done)}; exit ${rc}\n`,
    );
  }
  process.exit(rc);
} catch (e) {
  // Emscripten FS errors are ErrnoError objects without a useful toString().
  const msg = e?.stack ?? (e?.errno !== undefined ? `FS error errno=${e.errno} ${e.message ?? ""}` : String(e));
  process.stderr.write(`runner: error: ${msg}\n`);
  process.exit(99);
}
