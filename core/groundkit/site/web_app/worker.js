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
const GLUE = String.raw`
import json, re, time
import groundkit
from groundkit.analysis.tokenize import _word_pattern
from groundkit.retrieval.citations import citation_root, source_text, verify_citation
from groundkit.retrieval.display import display_spans, plain_text

_state = {"retriever": None, "reader": None, "results": [], "sources_root": None,
          "stored_root": None, "fetched": [], "given": None}
_prefetched = {}  # path -> bytes the page fetched ahead (the index head, while Python started)

def prefetched(path, data):
    _prefetched[path] = data.to_bytes()

def _close():
    if _state["retriever"] is not None:
        _state["retriever"].close()
    _state.update(retriever=None, results=[])

def _info(kind):
    r = _state["retriever"]
    status = r.reader.status()
    return json.dumps({
        "kind": kind,
        "documents": status.get("documents"),
        "chunks": status.get("chunks"),
        "modes": ["bm25", "dense", "hybrid"] if r.embedder is not None else ["bm25"],
        "embedder": None if r.embedder is None else r.embedder.identity.to_dict(),
        "groundkit": groundkit.__version__,
        "semantic": _state["given"] is not None and r.embedder is _state["given"],
    })

def _xhr_fetch(base):
    """fetch(path) -> bytes by synchronous XHR: allowed in a worker, and what lets the
    core's synchronous reader fetch a postings shard or a source the moment it needs one."""
    from urllib.parse import quote
    from js import XMLHttpRequest
    def fetch(path):
        ahead = _prefetched.pop(path, None)
        if ahead is not None:
            _state["fetched"].append([path, len(ahead)])
            return ahead
        xhr = XMLHttpRequest.new()
        xhr.open("GET", base + quote(path), False)
        xhr.responseType = "arraybuffer"
        xhr.send()
        if xhr.status != 200:
            raise OSError(f"HTTP {xhr.status} for {base + quote(path)}")
        data = xhr.response.to_bytes()
        _state["fetched"].append([path, len(data)])
        return data
    return fetch

def open_bundled(site_url, index_url, sources_url, sources_root, stored_root):
    from groundkit.store.static import StaticReader
    _close()
    _state["given"] = None
    reader = StaticReader(_xhr_fetch(site_url), index=index_url, sources=sources_url,
                          location="this site's index")
    _state["reader"] = reader
    _state["retriever"] = groundkit.Retriever(reader)
    _state.update(sources_root=sources_root, stored_root=stored_root)
    return _info("bundled")

def missing(query):
    """Shards the query's terms need that are not loaded yet (fetched ahead, in parallel)."""
    r, reader = _state["retriever"], _state["reader"]
    if reader is None or r.reader is not reader:
        return json.dumps([])
    return json.dumps(reader.missing(r.analyzer.terms(query)))

def put(path, data):
    data = data.to_bytes()
    _state["fetched"].append([path, len(data)])
    _state["reader"].put(path, data)

def fetched():
    return json.dumps(_state["fetched"])

def index_folder(folder, embedder):
    from groundkit.store.memory import MemoryStore
    from groundkit.retrieval import Retriever
    _close()
    store = MemoryStore("dropped")
    emb = groundkit.get_embedder(embedder) if embedder else None
    report = groundkit.Indexer(store, embedder=emb).ingest(folder)
    _state["retriever"] = Retriever(store.reader())
    _state.update(sources_root=None, stored_root=None)
    info = json.loads(_info("dropped"))
    info["report"] = {"summary": report.summary(),
                      "refused": [{"source": x.source, "message": x.message} for x in report.refused]}
    return json.dumps(info)

def query_word_spans(text, wanted):
    """Code-point spans of the words of text whose analyzed terms are query terms.

    Words are found with the analyzer's own word pattern on the text as cited, and each word
    is analyzed alone, so a mark means "this word indexes as a term of the query".
    """
    analyzer = _state["retriever"].analyzer
    spans = []
    for match in _word_pattern().finditer(text):
        word = match.group()
        hit = _marked.get(word)
        if hit is None:
            hit = _marked[word] = any(term in wanted for term in analyzer.terms(word))
        if hit:
            spans.append([match.start(), match.end()])
    return spans

_marked = {}  # word -> marked, for the current query's terms

def search(query, mode, top_k, defer, expand=True):
    """The results as JSON; with defer, {"need": [paths]} when files are missing (the page
    fetches them all in parallel, puts them, and asks again). expand: the last word also
    matches the words it begins, and a word found nowhere the words a typo away (ADR 0046)."""
    from groundkit.store.static import FilesNeeded
    r, reader = _state["retriever"], _state["reader"]
    static = reader is not None and r.reader is reader
    started = time.perf_counter()
    try:
        if static:
            reader.defer = defer
        lexical = bool(expand) and mode != "dense"
        response = r.search(groundkit.SearchRequest(query, top_k, mode, prefix=lexical, fuzzy=lexical))
    except FilesNeeded as needed:
        return json.dumps({"need": needed.paths})
    finally:
        if static:
            reader.defer = False
    elapsed = (time.perf_counter() - started) * 1000
    _state["results"] = list(response.results)
    wanted = set(r.analyzer.terms(query))
    expansions = response.metadata.get("expansions") or {}
    for words in expansions.values():
        for terms in words.values():
            wanted.update(terms)
    _marked.clear()
    out = []
    for rank, result in enumerate(response.results, start=1):
        c = result.citation
        marks = query_word_spans(c.text, wanted)
        display, where = plain_text(c.text)  # what a visitor reads; the citation stays c.text
        out.append({
            "rank": rank, "score": result.score, "chunk_id": result.chunk_id,
            "source": c.source, "start_offset": c.start_offset, "end_offset": c.end_offset,
            "start_line": c.start_line, "end_line": c.end_line, "text": c.text,
            "heading": [plain_text(h)[0] for h in result.metadata.get("heading_path", [])],
            "marks": marks,
            "display": display, "display_marks": display_spans(where, marks),
            "extracted": c.extractor is not None,
        })
    return json.dumps({"results": out, "ms": elapsed, "stage": response.metadata["stage"],
                       "terms": sorted(wanted), "expansions": expansions})

def verify(index):
    r = _state["retriever"]
    result = _state["results"][index]
    if _state["sources_root"] is None:  # dropped files: the stored root is the MEMFS folder
        check = r.verify(result)
    else:  # bundled: the stored root is the build machine's; the site ships a copy of it
        stored = r.document_of(result).root
        if stored != _state["stored_root"]:
            return json.dumps({"verdict": "unresolvable",
                               "reason": f"document root {stored} is not the one this site ships"})
        check = verify_citation(result.citation, _state["sources_root"])
        if check.verdict == "verified":  # the span alone is not enough: is it the same file?
            changed = _changed_copy(r.document_of(result), result.citation)
            if changed is not None:
                return json.dumps({"verdict": "drifted", "reason": changed})
    return json.dumps({"verdict": check.verdict, "reason": check.reason})

def _changed_copy(document, citation):
    """Why the site's copy of a source is not the file that was indexed (its text's hash
    differs from the recorded one), or None when it is the same."""
    from groundkit.contracts import content_hash
    try:
        text = source_text(_state["sources_root"], citation.source, extractor=citation.extractor)
    except groundkit.GroundkitError as exc:
        return exc.message
    if content_hash(text) == document.content_hash:
        return None
    return (f"the site's copy of {citation.source} is not the file that was indexed (its "
            "content hash differs from the recorded one), although the cited text is still there")

def cited_source(index):
    """The text an extracted (HTML, PDF) result's offsets index: its file, re-extracted."""
    r = _state["retriever"]
    result = _state["results"][index]
    c = result.citation
    if _state["sources_root"] is None:
        root = citation_root(r.document_of(result), r.reader.location)
    else:
        root = _state["sources_root"]
    try:
        return json.dumps({"text": source_text(root, c.source, extractor=c.extractor)})
    except groundkit.GroundkitError as exc:
        return json.dumps({"error": exc.message})

def bench(queries, repeats, mode, top_k):
    r = _state["retriever"]
    per_query = {q: [] for q in queries}
    for _ in range(repeats):
        for q in queries:
            started = time.perf_counter()
            r.search(groundkit.SearchRequest(q, top_k, mode))
            per_query[q].append((time.perf_counter() - started) * 1000)
    medians = {q: sorted(t)[len(t) // 2] for q, t in per_query.items()}
    times = sorted(x for t in per_query.values() for x in t)
    return json.dumps({"n": len(times), "median_ms": times[len(times) // 2],
                       "p95_ms": times[int(len(times) * 0.95)], "total_ms": sum(times),
                       "sum_of_medians_ms": sum(medians.values()), "per_query_median_ms": medians})
`;

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
    writeFile("/gkapp/gk_app.py", GLUE);
    py.runPython("import sys; sys.path.insert(0, '/gkapp')");
    gk = py.pyimport("gk_app");
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
  async searchOnce({ query, mode, topK, expand = true }) {
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
      const out = call("search", query, mode, topK, true, expand);
      if (!out.need) return out;
      await fetchAll(out.need);
    }
    return call("search", query, mode, topK, false, expand); // what is left, fetched as needed
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
