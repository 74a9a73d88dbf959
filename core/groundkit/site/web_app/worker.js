// groundkit search worker: Pyodide, the groundkit wheel and the collection load and run here, off
// the page's main thread, so the page draws and takes typing from its first frame (ADR 0018).
// Protocol: the page posts {id, op, args}; the worker answers {id, ok, value} or {id, ok: false,
// error}, and posts {type: "progress", phase, text, fraction} while it starts. The page has
// already checked every URL it hands over (same origin, or named by the build; app.js).
const SITE_DIR = "/site"; // the bundled collection and sources in Pyodide's MEMFS
const DROP_DIR = "/drop";

let py = null; // the Pyodide instance
let gk = null; // the Python glue module (proxy)
let boot = null; // {siteUrl, pyodideUrl, site}
let semantic = null; // semantic.js's handle, once a visitor turns semantic search on
let wheel = null; // {url, bytes: a promise once fetched, installed}
const timings = {};
const t0 = performance.now();
const mark = (name) => (timings[name] = Math.round(performance.now() - t0));
const progress = (phase, text, fraction = null) => self.postMessage({ type: "progress", phase, text, fraction });

// A site-relative path as a URL path: each segment encoded, so a file named "a?b.md",
// "x#y.md" or "a%2Fb.md" is fetched as itself, never as a query, a fragment or another path.
const encodePath = (path) => path.split("/").map(encodeURIComponent).join("/");

async function fetchBytes(url, label, phase) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${label}: HTTP ${response.status} for ${response.url}`);
  const total = Number(response.headers.get("content-length")) || 0;
  if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
  // Chunks, then one copy: a host that adds Content-Encoding announces fewer bytes than come.
  const chunks = [];
  const reader = response.body.getReader();
  let got = 0;
  let shown = 0; // progress at most every 100 ms: a message per chunk kept both threads busy
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    chunks.push(value);
    got += value.length;
    if (!phase || performance.now() - shown < 100) continue;
    shown = performance.now();
    const what = phase === "semantic" ? `Downloading the ${label}` : "Loading search…";
    progress(phase, `${what} ${(got / 1024).toFixed(0)} KiB`, Math.min(got / total, 1));
  }
  if (chunks.length === 1) return chunks[0];
  const out = new Uint8Array(got);
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

// The memory snapshot ships gzipped (ADR 0033) and is inflated here, off the main thread; a
// host that already undid the gzip (Content-Encoding) hands over the snapshot itself. Either
// way it comes without its runs of zero bytes, which are put back here (build-site's
// strip_zero_runs: "GKZR", full length, run count, (offset, length) pairs, the other bytes).
async function fetchSnapshot(url, given) {
  const page = given && (await earlyBytes("snapshot"));
  if (page) handed.push("snapshot");
  let bytes = page ? new Uint8Array(page) : await fetchBytes(url, "Python runtime snapshot", "download");
  if (bytes[0] === 0x1f && bytes[1] === 0x8b) {
    const inflated = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    bytes = new Uint8Array(await new Response(inflated).arrayBuffer());
  }
  return unpackZeroRuns(bytes);
}

function unpackZeroRuns(bytes) {
  if (String.fromCharCode(...bytes.subarray(0, 4)) !== "GKZR") return bytes; // not stripped: Pyodide checks its own header
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const length = view.getUint32(4, true);
  const runs = view.getUint32(8, true);
  const out = new Uint8Array(length); // zeroed
  let from = 12 + 8 * runs;
  let at = 0;
  for (let i = 0; i < runs; i++) {
    const start = view.getUint32(12 + 8 * i, true);
    out.set(bytes.subarray(from, from + start - at), at);
    from += start - at;
    at = start + view.getUint32(16 + 8 * i, true);
  }
  if (bytes.length - from !== length - at) throw new Error("the runtime snapshot is damaged: rebuild the site");
  out.set(bytes.subarray(from), at);
  return out;
}

// Pyodide compiles its wasm only once it holds the snapshot (loadPyodide awaits _loadSnapshot
// before it instantiates); compiled here from the first byte instead, the module is ready when
// the snapshot is (ADR 0033). Until loadPyodide returns, Pyodide's own fetch of the file gets
// this download and its instantiateStreaming this module: one download, one compile.
// The page may have fetched the file already (given): compiled from those bytes then.
function compileWasmEarly(url, given) {
  const realFetch = self.fetch;
  const realInstantiate = WebAssembly.instantiateStreaming;
  const compiled = (given ? earlyBytes("wasm") : Promise.resolve(null)).then((bytes) =>
    bytes ? (handed.push("wasm"), WebAssembly.compile(bytes)) : WebAssembly.compileStreaming(realFetch(url)));
  compiled.catch(() => {}); // Pyodide's instantiate reports it
  self.fetch = (input, init) => (String(input) === url ? compiled : realFetch(input, init));
  WebAssembly.instantiateStreaming = async (source, imports) => {
    if (source !== compiled) return realInstantiate(source, imports);
    const module = await compiled;
    return { module, instance: await WebAssembly.instantiate(module, imports) };
  };
  return () => {
    self.fetch = realFetch;
    WebAssembly.instantiateStreaming = realInstantiate;
  };
}

// The runtime files the page fetched for the worker (app.js, earlyRuntime): name -> a promise
// of an ArrayBuffer, or of null when the page's fetch failed (then fetched here).
const early = new Map();
const handed = []; // the names whose bytes the page's fetch gave (timings.handed: measurement, tests)
function earlyBytes(name) {
  if (!early.has(name)) {
    let resolve;
    early.set(name, Object.assign(new Promise((ok) => (resolve = ok)), { resolve: (v) => resolve(v) }));
  }
  return early.get(name);
}

// ---------- the Python side ----------
// The Python half lives in groundkit.site.page_runtime (typed, linted and tested under CPython
// and Pyodide): the worker only imports it.

const call = (name, ...args) => JSON.parse(gk[name](...args));

function fetchWheel() {
  if (!wheel.bytes) {
    wheel.bytes = fetchBytes(wheel.url, "search engine", "download");
    wheel.bytes.catch(() => {});
  }
  return wheel.bytes;
}

// The wheel's files in site-packages. A snapshot restores the modules it imported, not these
// files, which modules imported later (and verify's source reading) still need; a snapshot
// site installs them after the first result (ADR 0033), and before any other operation.
async function installWheel() {
  if (wheel.installed) return;
  const bytes = await fetchWheel();
  if (wheel.installed) return;
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(bytes, "wheel", { extractDir: sitePackages });
  // Finders that listed site-packages while it was empty look again (not importlib's
  // invalidate_caches(): it imports importlib.metadata, which the trimmed library lacks).
  py.runPython(`import sys
for _path, _finder in list(sys.path_importer_cache.items()):
    if _path.startswith(${JSON.stringify(sitePackages)}) and hasattr(_finder, "invalidate_caches"):
        _finder.invalidate_caches()`);
  wheel.installed = true;
}

function writeFile(path, bytes, opts) {
  py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  py.FS.writeFile(path, bytes, opts);
}

// Before a snapshot site's wheel is installed: run, and if a module the snapshot lacks was
// needed, say so (the snapshot should hold it: a bug) and run again with the wheel installed.
async function withWheelIfNeeded(what, run) {
  try {
    return await run();
  } catch (e) {
    const text = String(e?.message ?? e);
    if (wheel.installed || !/ModuleNotFoundError|ImportError/.test(text)) throw e;
    console.error(`groundkit worker: ${what} needed a module the snapshot lacks; installing ` +
      `the wheel first (${text.trim().split("\n").slice(-1)[0]})`);
    await installWheel();
    return await run();
  }
}

const ops = {
  async boot(args) {
    boot = args;
    const { site, pyodideUrl } = args;
    const base = (u) => new URL(u, args.siteUrl).href;
    progress("runtime", "Loading search…");
    // Every download starts before Pyodide's own script is imported (ADR 0033): the snapshot
    // (Python's memory with groundkit already imported, build-site --snapshot, ADR 0019; the
    // site's python_stdlib.zip then holds only the modules the worker can import), the wasm,
    // compiled as it comes, and the index head (the core reads it first; a failed fetch is
    // left to the core's own). The wheel downloads while Pyodide starts (after the first
    // result with a snapshot); the rest of the index is fetched a shard at a time, later.
    const given = new Set(args.early ?? []); // fetched by the page, handed over (app.js)
    const snapshot = site.pyodide.snapshot
      ? fetchSnapshot(base(site.pyodide.snapshot), given.has("snapshot"))
      : null;
    snapshot?.catch(() => {}); // loadPyodide reports it
    const restoreWasm = compileWasmEarly(`${pyodideUrl}pyodide.asm.wasm`, given.has("wasm"));
    const headPath = `${site.collection.url}collection.bin`;
    const headP = fetchBytes(base(headPath), "index", null).catch(() => null);
    wheel = { url: base(site.wheel), bytes: null, installed: false };
    // A wheel carrying other packages (a --language site's stemmers) is needed before the index
    // opens, snapshot or not: the snapshot leaves them out (ADR 0045).
    const bundles = (site.wheel_bundles ?? []).length > 0;
    if (!snapshot || bundles) fetchWheel();
    let loadPyodide;
    try {
      ({ loadPyodide } = await import(`${pyodideUrl}pyodide.mjs`));
    } catch (e) {
      restoreWasm();
      throw new Error(`cannot load Pyodide from ${pyodideUrl}pyodide.mjs (${e.message}); ` +
        "rebuild the site with --pyodide-dir, or give a working --pyodide-url");
    }
    const options = { indexURL: pyodideUrl, stdout: console.log, stderr: console.warn };
    if (snapshot) options._loadSnapshot = snapshot;
    try {
      py = await loadPyodide(options);
    } finally {
      restoreWasm();
    }
    mark("pyodideMs");
    timings.handed = [...handed].sort();

    progress("install", "Loading search…");
    if (!site.pyodide.snapshot || bundles) await installWheel();
    py.runPython("import sys; sys.dont_write_bytecode = True");
    gk = py.pyimport("groundkit.site.page_runtime");
    const head = await headP;
    if (head) gk.prefetched(headPath, head);
    mark("wheelMs");

    progress("collection", "Loading search…");
    const info = await withWheelIfNeeded("opening the index", () => ops.openBundled());
    mark("collectionMs");
    return { info, timings };
  },
  // Semantic search (ADR 0035): semantic.js, onnxruntime-web and the model, fetched only now.
  async semantic() {
    if (semantic) return call("_info", "bundled");
    if (!boot.site.semantic) throw new Error("this site was built without --ort-dir: no model for the page");
    await installWheel();
    const started = performance.now();
    const { startSemantic } = await import("./semantic.js");
    semantic = await startSemantic({ py, site: boot.site, siteUrl: boot.siteUrl, fetchBytes, progress });
    timings.semanticMs = Math.round(performance.now() - started);
    return call("_info", "bundled");
  },
  async search(args) {
    return withWheelIfNeeded("search", () => ops.searchOnce(args));
  },
  async searchOnce({ query, mode, topK, expand = true, group = 0 }) {
    if (semantic?.active && mode !== "bm25") await semantic.give(query);
    // The shards of the query's terms, fetched in parallel; the core then finds them loaded.
    const paths = call("missing", query);
    const base = (u) => new URL(encodePath(u), boot.siteUrl).href;
    const fetchAll = async (list) => {
      const got = await Promise.all(list.map((p) => fetchBytes(base(p), "index", null)));
      list.forEach((p, i) => gk.put(p, got[i]));
    };
    await fetchAll(paths);
    // Then the result's chunk blocks and sources (and vectors), also in parallel: the search
    // names what it lacks instead of fetching it one file at a time (StaticReader.defer).
    for (let round = 0; round < 4; round++) {
      const out = call("search", query, mode, topK, true, expand, undefined, undefined, group);
      if (!out.need) return out;
      await fetchAll(out.need);
    }
    // what is left, fetched as needed
    return call("search", query, mode, topK, false, expand, undefined, undefined, group);
  },
  fetched() {
    return call("fetched");
  },
  async embed({ query }) { // the page's query vector (measurement and the browser test)
    if (!semantic) throw new Error("semantic search is off");
    return semantic.embed(query);
  },
  // bytes: the source file as the page fetched it (written once into MEMFS for verify).
  async verify({ index, source, bytes }) {
    await installWheel();
    if (bytes) {
      const path = `${SITE_DIR}/sources/${source}`;
      if (!py.FS.analyzePath(path).exists) writeFile(path, bytes);
    }
    return call("verify", index);
  },
  // An extracted result's text (its offsets index the extractor's output, not the bytes).
  async citedSource({ index, source, bytes }) {
    await installWheel();
    if (bytes) {
      const path = `${SITE_DIR}/sources/${source}`;
      if (!py.FS.analyzePath(path).exists) writeFile(path, bytes);
    }
    return call("cited_source", index);
  },
  async index({ files, embedder }) {
    await installWheel();
    const folder = `${DROP_DIR}/${Date.now()}`;
    if (semantic) semantic.active = false; // dropped files: their own (hash) vectors, if any
    for (const { rel, bytes } of files) writeFile(`${folder}/${rel}`, bytes);
    return call("index_folder", folder, embedder);
  },
  openBundled() {
    const site = boot.site;
    const info = call("open_bundled", new URL(".", boot.siteUrl).href, site.collection.url, site.sources.url,
      `${SITE_DIR}/sources`, site.sources.root);
    if (!semantic) return info;
    semantic.enable(); // back from dropped files: the model is still loaded and checked
    return call("_info", "bundled");
  },
  async bench({ queries, repeats, mode, topK }) {
    await installWheel();
    return JSON.parse(gk.bench(py.toPy(queries), repeats, mode, topK));
  },
  wasmHeapBytes() {
    return py?._module?.HEAPU8?.byteLength ?? null; // private API: measurement only
  },
};

/** An error as one line for the owner's console and the page: a Python exception's last line
 * (its type and message), never its traceback. */
function reason(e) {
  const text = String(e?.message ?? e);
  if (!text.startsWith("Traceback (most recent call last)")) return text;
  const lines = text.trim().split("\n").filter((line) => line.trim());
  return lines[lines.length - 1] ?? text;
}

// One request at a time, in order: Python is single-threaded and the glue keeps state.
let queue = Promise.resolve();
self.onmessage = (event) => {
  if (event.data.type === "early") return earlyBytes(event.data.name).resolve(event.data.bytes);
  const { id, op, args } = event.data;
  queue = queue.then(async () => {
    try {
      const value = await ops[op](args ?? {});
      self.postMessage({ id, ok: true, value });
    } catch (e) {
      console.error(`groundkit worker: ${op} failed: ${reason(e)}`);
      self.postMessage({ id, ok: false, error: reason(e) });
    }
  });
  // After a snapshot site's first answer: the wheel, before the next request.
  if (op === "search") {
    queue = queue.then(() => (wheel && !wheel.installed ? installWheel() : null)).catch((e) =>
      console.error(`groundkit worker: installing the wheel failed: ${reason(e)}`));
  }
};
