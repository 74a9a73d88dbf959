// Run by `groundkit build-site --snapshot` (Node.js >= 20), never served: starts Pyodide from
// the site's own copy of the runtime, installs the site's groundkit wheel, imports what the
// page's worker imports, and writes Pyodide's memory snapshot, which the worker restores
// instead of starting Python from scratch (adr/0019-site-start-up-and-pagefind-bench.md).
//   node make_snapshot.mjs PYODIDE_DIR WHEEL OUT
import fs from "node:fs";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [pyodideDir, wheel, out] = process.argv.slice(2);
try {
  const { loadPyodide } = await import(pathToFileURL(path.resolve(pyodideDir, "pyodide.mjs")).href);
  const py = await loadPyodide({ indexURL: path.resolve(pyodideDir) + "/", _makeSnapshot: true });
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(new Uint8Array(fs.readFileSync(wheel)), "wheel", { extractDir: sitePackages });
  py.runPython(`
import sys
sys.dont_write_bytecode = True
import json, re, time, urllib.parse
import groundkit, groundkit.analysis.tokenize, groundkit.retrieval.citations
import groundkit.store.memory, groundkit.store.static
`);
  const snapshot = py.makeMemorySnapshot();
  fs.writeFileSync(out, snapshot);
  console.log(JSON.stringify({ bytes: snapshot.length }));
} catch (e) {
  console.error(e?.stack ?? String(e));
  process.exit(1);
}
