// Run by `groundkit build-site --snapshot` (Node.js >= 20), never served: starts Pyodide from
// the site's own copy of the runtime, installs the site's groundkit wheel, imports what the
// page's worker imports, zeroes the heap's free memory (it compresses to nothing then), and
// writes Pyodide's memory snapshot, which the worker restores instead of starting Python from
// scratch (adr/0019-site-start-up-and-pagefind-bench.md, adr/0033-lean-snapshot-site.md).
// It then traces the standard-library modules the restored worker can import: every module
// named by an import statement anywhere in groundkit or in the worker's glue (APP_DIR), imported
// here with all it imports in turn; build-site ships only those the snapshot does not hold
// already in the site's python_stdlib.zip.
//   node make_snapshot.mjs PYODIDE_DIR WHEEL OUT APP_DIR
// Prints one JSON line: {"bytes": snapshot size, "imported": [sys.modules names in the snapshot],
// "modules": [sys.modules names after tracing]}.
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const ZERO_FREE = `
import ctypes, gc, zipimport
# The restored worker reads the site's (trimmed) standard library zip: forget this one's
# directory, or imports after the restore would seek to this zip's offsets in that one.
zipimport._zip_directory_cache.clear()
gc.collect()
def _zero_free():
    # calloc'd blocks of falling sizes while the program break stays put: every free block of
    # the heap they take is zeroed, and stays zero (but for its header) once freed. A restore
    # cannot grow memory, so the heap must not grow here (the caller checks).
    sbrk = ctypes.CDLL(None).sbrk
    sbrk.restype, sbrk.argtypes = ctypes.c_void_p, [ctypes.c_ssize_t]
    hold = []
    for size in (1 << 16, 1 << 12, 1 << 9, 1 << 6, 24):
        brk = sbrk(0)  # each size may move it once (by one block): far below what memory holds
        while sbrk(0) == brk:
            hold.append(bytes(size))
    hold.clear()
`;

const TRACE = `
import ast, importlib, importlib.util, json, pathlib, sys
import groundkit

def _named(source):
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module)
            names.update(f"{node.module}.{alias.name}" for alias in node.names)
    return names

def _trace(glue):
    names = _named(glue)
    for file in sorted(pathlib.Path(groundkit.__file__).parent.rglob("*.py")):
        names |= _named(file.read_text("utf-8"))
    for name in sorted(names):
        try:
            importlib.import_module(name)
        except Exception:  # an extra's package, a name that is not a module, a module Pyodide lacks
            pass
    if importlib.util.find_spec("snowballstemmer") is not None:  # a --language site's wheel
        from groundkit.analysis.languages import stemmer_release
        stemmer_release()  # reading the release imports importlib.metadata's parts on demand
    return json.dumps(sorted(sys.modules))
`;

const [pyodideDir, wheel, out, appDir] = process.argv.slice(2);
try {
  const { loadPyodide } = await import(pathToFileURL(path.resolve(pyodideDir, "pyodide.mjs")).href);
  const py = await loadPyodide({ indexURL: path.resolve(pyodideDir) + "/", _makeSnapshot: true });
  // The runtime's memory as its wasm declares it: a restore copies the snapshot into that much
  // memory and cannot grow it first, so the heap must not grow while the snapshot is made.
  const initialHeap = py._module.HEAPU8.length; // _module: private API, used at build time only
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(new Uint8Array(fs.readFileSync(wheel)), "wheel", { extractDir: sitePackages });
  py.runPython(`
import sys
sys.dont_write_bytecode = True
import json, re, time, urllib.parse
import groundkit, groundkit.analysis.tokenize, groundkit.retrieval.citations, groundkit.retrieval.display
for _name in groundkit.__all__:  # imported on first use (adr/0047): the snapshot holds them all
    getattr(groundkit, _name)
import importlib.metadata  # a snowball stemmer's release, now imported where it is read
import groundkit.store.memory, groundkit.store.static
import groundkit.site.page_runtime  # the worker's Python (the snapshot's files are not kept, its modules are)
import groundkit.analysis.porter, groundkit.analysis.snowball  # the stemmers, imported on open
# The analyzer's word patterns scan Unicode's tables when first used (0.1-0.2 s each in
# Pyodide): built here, they come with the snapshot instead of delaying the first query.
from groundkit.analysis.tokenize import _plain_word_pattern, _word_pattern
_word_pattern(), _plain_word_pattern()
`);
  const heap = py._module.HEAPU8.length;
  if (heap > initialHeap) {
    throw new Error(`the heap grew from ${initialHeap >> 20} to ${heap >> 20} MiB while groundkit ` +
      "was imported: a page could not restore such a snapshot (the runtime starts with the " +
      "former); build the site without --snapshot");
  }
  py.runPython(ZERO_FREE);
  py.runPython("_zero_free(); del _zero_free; gc.collect()");
  if (py._module.HEAPU8.length !== heap) throw new Error("the heap grew while zeroing its free memory");
  const imported = JSON.parse(py.runPython("import json, sys; json.dumps(sorted(sys.modules))"));
  const snapshot = py.makeMemorySnapshot();
  fs.writeFileSync(out, snapshot);
  // The page's Python (groundkit.site.page_runtime, page_semantic) is part of the package the
  // trace reads whole.
  py.runPython(TRACE);
  const modules = JSON.parse(py.globals.get("_trace")(""));
  console.log(JSON.stringify({ bytes: snapshot.length, imported, modules }));
} catch (e) {
  console.error(e?.stack ?? String(e));
  process.exit(1);
}
