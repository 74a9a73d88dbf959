// groundkit static search app: Pyodide + the groundkit wheel, in the page, no server code.
// site.json (written by `groundkit build-site`) names the Pyodide URL, the wheel, the collection
// and the shipped sources. URL parameters: ?site=URL (another site.json), ?pyodide=URL (another
// Pyodide base URL, ending in /). See ADR 0011.
import { decodeSource, spanToUtf16 } from "./offsets.js";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
const SITE_DIR = "/site"; // where the bundled collection and sources live in Pyodide's MEMFS
const DROP_DIR = "/drop";
const t0 = performance.now();
const metrics = { pageStartMs: 0 };
window.groundkit = { metrics, ready: null };

let py = null; // the Pyodide instance
let gk = null; // the Python glue module (proxy)
let site = null; // site.json
let results = []; // the last search's results (plain objects)
let current = "bundled"; // "bundled" | "dropped"
const droppedBytes = new Map(); // source -> Uint8Array, for the dropped collection

// ---------- status and progress ----------
function setState(state) {
  document.body.dataset.state = state;
}
function progress(text, fraction = null) {
  $("#progress-text").textContent = text;
  const bar = $("#progress-bar");
  if (fraction === null) bar.removeAttribute("value");
  else bar.value = fraction;
}
function fail(what, err) {
  console.error(err);
  setState("error");
  const box = $("#error");
  box.hidden = false;
  box.querySelector(".what").textContent = what;
  box.querySelector(".detail").textContent = String(err?.message ?? err).split("\n").slice(-8).join("\n");
}
const mark = (name) => (metrics[name] = Math.round(performance.now() - t0));

async function fetchBytes(url, label) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${label}: HTTP ${response.status} for ${response.url}`);
  const total = Number(response.headers.get("content-length")) || 0;
  if (!response.body || !total) return new Uint8Array(await response.arrayBuffer());
  const out = new Uint8Array(total);
  const reader = response.body.getReader();
  let got = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (got + value.length > total) throw new Error(`${label}: more bytes than announced`);
    out.set(value, got);
    got += value.length;
    progress(`${label}: ${(got / 1024).toFixed(0)} of ${(total / 1024).toFixed(0)} KiB`, got / total);
  }
  return got === total ? out : out.subarray(0, got);
}

// ---------- Python side ----------
const GLUE = String.raw`
import json, time
from pathlib import Path
import groundkit
from groundkit.retrieval.citations import verify_citation

_state = {"retriever": None, "results": [], "sources_root": None, "stored_root": None}

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
    })

def open_bundled(index_dir, name, sources_root, stored_root):
    _close()
    _state["retriever"] = groundkit.Retriever.open(index_dir, name)
    _state.update(sources_root=sources_root, stored_root=stored_root)
    return _info("bundled")

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

def search(query, mode, top_k):
    r = _state["retriever"]
    started = time.perf_counter()
    response = r.search(query, top_k=top_k, mode=mode)
    elapsed = (time.perf_counter() - started) * 1000
    _state["results"] = list(response.results)
    out = []
    for rank, result in enumerate(response.results, start=1):
        c = result.citation
        out.append({
            "rank": rank, "score": result.score, "chunk_id": result.chunk_id,
            "source": c.source, "start_offset": c.start_offset, "end_offset": c.end_offset,
            "start_line": c.start_line, "end_line": c.end_line, "text": c.text,
            "heading": list(result.metadata.get("heading_path", [])),
        })
    return json.dumps({"results": out, "ms": elapsed, "stage": response.metadata["stage"]})

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
    return json.dumps({"verdict": check.verdict, "reason": check.reason})

def bench(queries, repeats, mode, top_k):
    r = _state["retriever"]
    per_query = {q: [] for q in queries}
    for _ in range(repeats):
        for q in queries:
            started = time.perf_counter()
            r.search(q, top_k=top_k, mode=mode)
            per_query[q].append((time.perf_counter() - started) * 1000)
    medians = {q: sorted(t)[len(t) // 2] for q, t in per_query.items()}
    times = sorted(x for t in per_query.values() for x in t)
    return json.dumps({"n": len(times), "median_ms": times[len(times) // 2],
                       "p95_ms": times[int(len(times) * 0.95)], "total_ms": sum(times),
                       "sum_of_medians_ms": sum(medians.values()), "per_query_median_ms": medians})
`;

const call = (name, ...args) => JSON.parse(gk[name](...args));

async function boot() {
  setState("loading");
  progress("Reading site.json…");
  const siteUrl = new URL(params.get("site") ?? "site.json", location.href);
  const response = await fetch(siteUrl).catch((e) => { throw new Error(`cannot fetch ${siteUrl}: ${e}`); });
  if (!response.ok) throw new Error(`cannot fetch ${siteUrl}: HTTP ${response.status}`);
  site = await response.json();
  const base = (u) => new URL(u, siteUrl).href;
  document.title = `${site.title} · groundkit search`;
  $("#title").textContent = site.title;

  let pyodideUrl = params.get("pyodide") ?? site.pyodide.url;
  if (!pyodideUrl.endsWith("/")) pyodideUrl += "/";
  pyodideUrl = base(pyodideUrl);
  progress(`Loading the Python runtime (Pyodide ${site.pyodide.version}) from ${pyodideUrl}…`);
  let loadPyodide;
  try {
    ({ loadPyodide } = await import(`${pyodideUrl}pyodide.mjs`));
  } catch (e) {
    throw new Error(`cannot load Pyodide from ${pyodideUrl}pyodide.mjs (${e.message}); ` +
      "rebuild the site with --pyodide-dir, or pass ?pyodide=URL");
  }
  // The wheel and the collection download while Pyodide starts.
  const wheelP = fetchBytes(base(site.wheel), "groundkit wheel");
  const dbP = fetchBytes(base(site.collection.url), "collection");
  wheelP.catch(() => {}); dbP.catch(() => {});
  py = await loadPyodide({ indexURL: pyodideUrl, stdout: console.log, stderr: console.warn });
  mark("pyodideMs");

  progress("Installing groundkit…");
  const sitePackages = py.runPython("import site; site.getsitepackages()[0]");
  py.unpackArchive(await wheelP, "wheel", { extractDir: sitePackages });
  py.runPython("import sys; sys.dont_write_bytecode = True");
  py.FS.mkdirTree("/gkapp");
  py.FS.writeFile("/gkapp/gk_app.py", GLUE);
  py.runPython("import sys; sys.path.insert(0, '/gkapp')");
  gk = py.pyimport("gk_app");
  mark("wheelMs");

  progress("Opening the collection…");
  const c = site.collection;
  const dbDir = `${SITE_DIR}/collection/${c.name}`;
  py.FS.mkdirTree(dbDir);
  // canOwn: MEMFS keeps this buffer instead of a second copy of the whole collection.
  py.FS.writeFile(`${dbDir}/collection.sqlite`, await dbP, { canOwn: true });
  const info = call("open_bundled", `${SITE_DIR}/collection`, c.name, `${SITE_DIR}/sources`, site.sources.root);
  mark("collectionMs");
  showCollection(info);
  setState("ready");
  progress(`Ready in ${(metrics.collectionMs / 1000).toFixed(1)} s`, 1);
  $("#query").disabled = false;
  $("#search-button").disabled = false;
  $("#query").focus();
  if (params.get("q")) {
    $("#query").value = params.get("q");
    await runSearch();
  }
}

function showCollection(info) {
  current = info.kind;
  const what = info.kind === "bundled" ? `${site.title} (bundled)` : "your dropped files";
  $("#collection-info").textContent =
    `${what}: ${info.documents} documents, ${info.chunks} passages` +
    (info.embedder ? `, vectors by ${info.embedder.model ?? info.embedder.provider}` : "");
  const modes = $("#mode");
  modes.replaceChildren(...info.modes.map((m) => new Option(m, m)));
  modes.disabled = info.modes.length < 2;
  $("#results").replaceChildren();
  $("#viewer").hidden = true;
  $("#back-to-bundled").hidden = info.kind === "bundled";
}

// ---------- search and results ----------
async function runSearch(event) {
  event?.preventDefault();
  const query = $("#query").value.trim();
  if (!query) return;
  let out;
  try {
    out = call("search", query, $("#mode").value, 10);
  } catch (e) {
    showMessage(`Search failed: ${String(e.message).split("\n").filter(Boolean).at(-1)}`);
    return;
  }
  results = out.results;
  if (metrics.firstResultMs === undefined) mark("firstResultMs");
  metrics.lastQueryMs = out.ms;
  $("#search-meta").textContent = `${results.length} result${results.length === 1 ? "" : "s"} in ${out.ms.toFixed(1)} ms · ${out.stage}`;
  $("#search-meta").dataset.stage = out.stage;
  const list = $("#results");
  list.replaceChildren();
  if (!results.length) showMessage(`No passage matches “${query}”.`);
  for (const [i, r] of results.entries()) {
    const li = document.createElement("li");
    li.className = "result";
    Object.assign(li.dataset, { index: i, source: r.source, start: r.start_offset, end: r.end_offset });
    const head = document.createElement("div");
    head.className = "head";
    const cite = document.createElement("button");
    cite.className = "cite";
    cite.textContent = `${r.source}:${r.start_line}–${r.end_line}`;
    cite.title = `code points ${r.start_offset}..${r.end_offset}; show the passage in its source`;
    cite.addEventListener("click", () => showSource(i));
    const score = document.createElement("span");
    score.className = "score";
    score.textContent = `score ${r.score.toFixed(4)}`;
    const verify = document.createElement("button");
    verify.className = "verify";
    verify.textContent = "Verify";
    verify.addEventListener("click", () => verifyResult(i, li));
    const verdict = document.createElement("span");
    verdict.className = "verdict";
    head.append(cite, score, verdict, verify);
    const heading = document.createElement("div");
    heading.className = "heading";
    heading.textContent = r.heading.length ? `§ ${r.heading.join(" › ")}` : "";
    const snippet = document.createElement("p");
    snippet.className = "snippet";
    const flat = r.text.split(/\s+/).join(" ").trim();
    snippet.textContent = [...flat].length > 260 ? [...flat].slice(0, 259).join("") + "…" : flat;
    li.append(head, heading, snippet);
    list.append(li);
  }
  if (results.length) await showSource(0);
}

function showMessage(text) {
  const li = document.createElement("li");
  li.className = "message";
  li.textContent = text;
  $("#results").replaceChildren(li);
}

// The source's bytes, in Pyodide's FS (for verify) and decoded (for display).
async function sourceBytes(source) {
  if (current === "dropped") return droppedBytes.get(source);
  const path = `${SITE_DIR}/sources/${source}`;
  if (py.FS.analyzePath(path).exists) return py.FS.readFile(path);
  const url = new URL(site.sources.url + source.split("/").map(encodeURIComponent).join("/"),
    new URL(params.get("site") ?? "site.json", location.href));
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
  py.FS.writeFile(path, bytes);
  return bytes;
}

async function showSource(i) {
  const r = results[i];
  const viewer = $("#viewer");
  document.querySelectorAll(".result.selected").forEach((el) => el.classList.remove("selected"));
  document.querySelector(`.result[data-index="${i}"]`)?.classList.add("selected");
  viewer.hidden = false;
  $("#viewer-title").textContent = `${r.source}, lines ${r.start_line}–${r.end_line}`;
  const pre = $("#source-text");
  let text;
  try {
    text = decodeSource(await sourceBytes(r.source));
  } catch (e) {
    pre.replaceChildren(`The source could not be loaded: ${e.message}`);
    return;
  }
  const [s, e] = spanToUtf16(text, r.start_offset, r.end_offset);
  const cited = document.createElement("mark");
  cited.id = "cited";
  cited.textContent = text.slice(s, e);
  Object.assign(cited.dataset, { start: r.start_offset, end: r.end_offset, utf16Start: s, utf16End: e });
  cited.dataset.matches = String(text.slice(s, e) === r.text);
  pre.replaceChildren(text.slice(0, s), cited, text.slice(e));
  $("#viewer-offsets").textContent =
    `code points [${r.start_offset}:${r.end_offset}] = UTF-16 [${s}:${e}]` +
    (cited.dataset.matches === "true" ? "" : " — the source no longer holds the cited text here");
  // Scroll the source pane only (scrollIntoView would scroll the page too).
  pre.scrollTop = Math.max(0, cited.offsetTop - pre.clientHeight / 4);
}

async function verifyResult(i, li) {
  const out = li.querySelector(".verdict");
  out.textContent = "checking…";
  out.dataset.verdict = "";
  try {
    if (current === "bundled") await sourceBytes(results[i].source);
    const v = call("verify", i);
    out.textContent = v.verdict;
    out.dataset.verdict = v.verdict;
    out.title = v.reason;
  } catch (e) {
    out.textContent = "error";
    out.dataset.verdict = "error";
    out.title = String(e.message);
  }
}

// ---------- dropped files: indexed in memory ----------
function safePath(name) {
  const parts = name.replaceAll("\\", "/").split("/").filter((p) => p && p !== ".");
  if (!parts.length || parts.includes("..")) throw new Error(`refusing the path ${name}`);
  return parts.join("/");
}

async function entriesOf(entry, prefix, out) {
  if (entry.isFile) {
    const file = await new Promise((ok, ko) => entry.file(ok, ko));
    out.push([prefix + entry.name, file]);
  } else if (entry.isDirectory) {
    const reader = entry.createReader();
    for (;;) {
      const batch = await new Promise((ok, ko) => reader.readEntries(ok, ko));
      if (!batch.length) break;
      for (const child of batch) await entriesOf(child, `${prefix}${entry.name}/`, out);
    }
  }
}

async function indexFiles(pairs) {
  if (!gk) return;
  const stamp = Date.now();
  const folder = `${DROP_DIR}/${stamp}`;
  droppedBytes.clear();
  progress(`Indexing ${pairs.length} file${pairs.length === 1 ? "" : "s"} in the page…`);
  try {
    for (const [name, file] of pairs) {
      const rel = safePath(name);
      const bytes = new Uint8Array(await file.arrayBuffer());
      const path = `${folder}/${rel}`;
      py.FS.mkdirTree(path.slice(0, path.lastIndexOf("/")));
      py.FS.writeFile(path, bytes);
      droppedBytes.set(rel, bytes);
    }
    const started = performance.now();
    const info = call("index_folder", folder, $("#drop-embedder").checked ? "hash" : null);
    showCollection(info);
    const refused = info.report.refused.map((r) => `${r.source}: ${r.message}`);
    $("#drop-report").textContent = `${info.report.summary}` +
      (refused.length ? `\nrefused:\n${refused.join("\n")}` : "");
    progress(`Indexed in ${((performance.now() - started) / 1000).toFixed(2)} s`, 1);
    if ($("#query").value.trim()) await runSearch();
  } catch (e) {
    fail("Indexing the dropped files failed.", e);
  }
}

function setupDrop() {
  const zone = $("#drop");
  zone.addEventListener("dragover", (e) => { e.preventDefault(); zone.classList.add("over"); });
  zone.addEventListener("dragleave", () => zone.classList.remove("over"));
  zone.addEventListener("drop", async (e) => {
    e.preventDefault();
    zone.classList.remove("over");
    const pairs = [];
    const entries = [...e.dataTransfer.items].map((it) => it.webkitGetAsEntry?.()).filter(Boolean);
    if (entries.length) for (const entry of entries) await entriesOf(entry, "", pairs);
    else for (const f of e.dataTransfer.files) pairs.push([f.name, f]);
    await indexFiles(pairs);
  });
  $("#file-input").addEventListener("change", async (e) => {
    await indexFiles([...e.target.files].map((f) => [f.webkitRelativePath || f.name, f]));
    e.target.value = "";
  });
  $("#back-to-bundled").addEventListener("click", () => {
    const c = site.collection;
    showCollection(call("open_bundled", `${SITE_DIR}/collection`, c.name, `${SITE_DIR}/sources`, site.sources.root));
    $("#drop-report").textContent = "";
  });
}

// ---------- measurement hook (used by web/e2e; harmless otherwise) ----------
window.groundkit.wasmHeapBytes = () => py?._module?.HEAPU8?.byteLength ?? null; // private API: measurement only
window.groundkit.bench = (queries, repeats = 3, mode = "bm25", topK = 10) =>
  JSON.parse(gk.bench(py.toPy(queries), repeats, mode, topK));

$("#search").addEventListener("submit", runSearch);
setupDrop();
window.groundkit.ready = boot().catch((e) => fail("The search app could not start.", e));
