// groundkit static search app. The page only draws: Python (Pyodide, the groundkit wheel, the
// collection) runs in a Web Worker (worker.js), so the search box takes typing from the first
// frame and a query typed early runs as soon as the index is ready (ADR 0018).
// URLs: site.json and the runtime come from the build (`groundkit build-site`); ?site= and
// ?pyodide= are honoured only when same-origin, never to load code from elsewhere (ADR 0019).
// On a page of another site (<script type="module" src=".../app.js">, ADR 0048) the app draws
// nothing and reads no address parameters: it only offers window.groundkit.search.
// A collection whose analyzer the page's JS copy reproduces (site.json "first_answer") is searched
// by first_answer.js from the first keystroke; Python starts only after the first results are
// painted, or when the visitor asks for what only the core does (verify, an extracted source,
// semantic search, dropped files) and does those; bm25 on the site's collection stays with the
// JS path, whose answers are the core's, so typing never waits on Python (ADR 0055).
import { FirstAnswer } from "./first_answer.js";
import { decodeSource, spanToUtf16 } from "./offsets.js";

const PAGE = document.documentElement.dataset.groundkit === "page"; // this site's index.html
const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(PAGE ? location.search : "");
const t0 = performance.now();
const metrics = {};
const phases = [];
window.groundkit = { metrics, phases, ready: null };
const mark = (name) => (metrics[name] = Math.round(performance.now() - t0));

let site = null; // site.json
let siteUrl = null;
let results = []; // the last search's results
let current = "bundled"; // "bundled" | "dropped"
let ready = false;
let searchSeq = 0;
let defaultMode = "bm25"; // what the page searches with (hybrid once semantic search is on)
let links = null; // links.json: each source's rendered page (build-site --base-url/--url-map)
let quick = null; // the JS path (first_answer.js): bm25 on the site's collection, before and after Python
let python = null; // the worker's boot (Python and the collection), once asked for
let pythonUp = false;
let bootArgs = null;
let shown = null; // {query, mode, topK, by: "js" | "core"}: what the results on screen answer
let coreHolds = null; // the query whose results the worker holds (verify and sources index them)
let checking = false; // hold every JS answer against the core's (debug builds, the browser test)
const toCheck = []; // [query, topK, JS answer] not yet held against the core's
const firstAnswer = { answered: 0, checked: 0, mismatches: [] };
window.groundkit.firstAnswer = firstAnswer;
const sourceCache = new Map(); // source -> Uint8Array (bundled: fetched; dropped: read)
const sentToWorker = new Set(); // bundled sources the worker holds for verify

// ---------- the worker ----------
// Made on first use: a page that answers from its JS path fetches no worker before it must.
let worker = null;
const pending = new Map();
let nextId = 1;
function theWorker() {
  if (worker) return worker;
  worker = new Worker(new URL("worker.js", import.meta.url), { type: "module" });
  worker.onmessage = ({ data }) => {
    if (data.type === "progress") return progress(data.phase, data.text, data.fraction, true);
    const p = pending.get(data.id);
    pending.delete(data.id);
    if (data.ok) p.resolve(data.value);
    else p.reject(new Error(data.error));
  };
  worker.onerror = (e) => console.error("groundkit: the search worker failed to load", e.message ?? e);
  return worker;
}
function ask(op, args, transfer = []) {
  const id = nextId++;
  return new Promise((resolve, reject) => {
    pending.set(id, { resolve, reject });
    theWorker().postMessage({ id, op, args }, transfer);
  });
}

// ---------- status ----------
const setState = (state) => PAGE && (document.body.dataset.state = state);
function progress(phase, text, fraction = null, fromWorker = false) {
  if (!PAGE) return;
  // After a failure, a download still under way says nothing: no stale "Loading search…".
  if (document.body.dataset.state === "error") return;
  // Python starting behind a page that already answers: the visitor is not told.
  if (fromWorker && quick && !["semantic", "index"].includes(phase)) return;
  // The rest of the engine downloads in the background after the first results: the visitor
  // is not told, and the status line keeps saying the search is ready.
  if (phase === "download" && document.body.dataset.state === "ready") return;
  if (phases.at(-1) !== phase) phases.push(phase);
  $("#progress-text").textContent = text;
  const bar = $("#progress-bar");
  if (fraction === null) bar.removeAttribute("value");
  else bar.value = fraction;
}
/** Tell the visitor what happened in plain words; the site owner's fix goes to the console. */
function fail(visitorText, ownerDetail, reason = "error") {
  console.error(`groundkit: ${ownerDetail}`);
  setState("error");
  const box = $("#error");
  box.hidden = false;
  box.dataset.reason = reason;
  box.querySelector(".what").textContent = visitorText;
  $("#progress-text").textContent = "";
}

/** A URL from a query parameter, accepted only on this page's own origin. */
function sameOrigin(name, fallback) {
  const given = params.get(name);
  if (given === null) return fallback;
  let url;
  try {
    url = new URL(given, location.href);
  } catch {
    url = null;
  }
  if (url && url.origin === location.origin) return given;
  const err = new Error(`?${name}=${given} refused: only same-origin URLs are accepted from the ` +
    `address bar; a site's runtime and index URLs are set when it is built (groundkit build-site ` +
    `--pyodide-url / --pyodide-dir)`);
  err.refused = true;
  throw err;
}

// A --snapshot site's index.html preloads the runtime's snapshot and wasm (ADR 0033): fetched
// here, from the first moment (the preloads answer these requests), they are handed to the
// worker (transferred, not copied) as they arrive, instead of downloading only once the worker
// has started and has site.json. Not with ?site= or ?pyodide= (another runtime, maybe).
const earlyRuntime = [...document.querySelectorAll("link[rel=preload][data-runtime]")].map((link) => {
  const name = link.dataset.runtime;
  fetch(link.href)
    .then((r) => (r.ok ? r.arrayBuffer() : null))
    .catch(() => null) // the worker fetches it itself then, and reports what fails
    .then((bytes) => theWorker().postMessage({ type: "early", name, bytes }, bytes ? [bytes] : []));
  return name;
});

async function start() {
  setState("loading");
  progress("site", "Loading search…");
  siteUrl = new URL(sameOrigin("site", "site.json"), PAGE ? location.href : import.meta.url);
  const pyodideParam = sameOrigin("pyodide", null);
  const response = await fetch(siteUrl);
  if (!response.ok) throw new Error(`cannot fetch ${siteUrl}: HTTP ${response.status}`);
  site = await response.json();
  const linksP = site.links ? fetchLinks(new URL(site.links.url, siteUrl)) : null;
  if (PAGE) drawPage();
  checking = Boolean(site.ui?.debug) || params.get("check") === "first-answer";
  let pyodideUrl = pyodideParam ?? site.pyodide.url; // the build's URL, or a same-origin override
  if (!pyodideUrl.endsWith("/")) pyodideUrl += "/";
  pyodideUrl = new URL(pyodideUrl, pyodideParam === null ? siteUrl : location.href).href;
  const early = pyodideParam === null && params.get("site") === null ? earlyRuntime : [];
  bootArgs = { siteUrl: siteUrl.href, pyodideUrl, site, early };
  quick = site.first_answer ? await openFirstAnswer() : null;
  let info;
  if (quick) {
    const c = site.collection;
    info = { kind: "bundled", documents: c.documents, chunks: c.chunks, modes: ["bm25"], embedder: null, semantic: false };
  } else {
    info = await bootPython();
  }
  links = await linksP;
  mark("readyMs");
  ready = true;
  showCollection(info);
  if (!PAGE) return;
  $("#semantic-label").hidden = !site.semantic;
  setState("ready");
  progress("ready", "Ready.", 1);
  const typed = $("#query").value.trim();
  if (typed) await runSearch();
  else if (params.get("q")) {
    $("#query").value = params.get("q");
    await runSearch();
  }
}

/** The JS first answer over the site's index, or null (the page then waits for Python). */
async function openFirstAnswer() {
  const fetchSiteBytes = async (path) => {
    const url = new URL(path.startsWith("index/") ? site.collection.url + path.slice(6) : path, siteUrl);
    const r = await fetch(url);
    if (!r.ok) throw new Error(`HTTP ${r.status} for ${url}`);
    return new Uint8Array(await r.arrayBuffer());
  };
  try {
    return await FirstAnswer.open(fetchSiteBytes);
  } catch (e) {
    console.error(`groundkit: the page's first answer could not open the index (${e.message}); searching once Python has started`);
    return null;
  }
}

/** Python and the collection in the worker, started once (ADR 0018, 0062). */
function bootPython() {
  if (!python) {
    mark("pythonRequestedMs");
    python = ask("boot", bootArgs).then(async ({ info, timings }) => {
      Object.assign(metrics, timings);
      mark("pythonReadyMs");
      pythonUp = true;
      await checkFirstAnswers();
      return info;
    });
  }
  return python;
}

/** After the first results are painted, Python starts once the visitor has stopped searching
 * for QUIET_MS and the page is idle: its 6-8 MB download would otherwise share the link (and
 * its start-up the CPU) with the fetches of every keystroke (ADR 0062). Each search restarts
 * the wait. */
const QUIET_MS = 2000;
let quietTimer = null;
function bootWhenIdle() {
  if (python) return;
  clearTimeout(quietTimer);
  quietTimer = setTimeout(() => {
    const later = window.requestIdleCallback ?? ((f) => setTimeout(f, 200));
    later(() => python || bootPython().catch((e) => console.error(`groundkit: Python could ` +
      `not start (keyword search still answers from the page's index; verify and semantic ` +
      `search need it): ${e.message}`)), { timeout: 2000 });
  }, QUIET_MS);
}

/** A search: the JS path answers bm25 on the site's own collection, before and after Python is
 * up (as-you-type never waits on the core: ADR 0055), else the core in the worker. Both answer
 * alike; checking holds every JS answer to the core's, once Python is up. */
async function answer(query, mode, topK, group = 0) {
  if (quick && mode === "bm25" && current === "bundled") {
    const started = performance.now();
    const js = await quick.search(query, topK, { group });
    if (js !== null) {
      if (js.error) throw new Error(js.error);
      firstAnswer.answered += 1;
      if (checking) {
        toCheck.push([query, topK, group, js]);
        if (pythonUp) checkFirstAnswers().catch((e) => console.error(`groundkit: ${e.message}`));
      }
      bootWhenIdle(); // answered without Python: it may follow once the visitor pauses
      return { ...js, ms: performance.now() - started, by: "js" };
    }
  }
  await bootPython();
  const out = await ask("search", { query, mode, topK, group });
  coreHolds = { query, mode, topK, group };
  return { ...out, by: "core" };
}

/** The worker holds the results on screen (verify and a cited source index them). */
async function coreResults() {
  await bootPython();
  const s = shown;
  const same = (a, b) => a?.query === b.query && a.mode === b.mode && a.topK === b.topK && a.group === b.group;
  if (s && !same(coreHolds, s)) {
    await ask("search", { query: s.query, mode: s.mode, topK: s.topK, group: s.group });
    coreHolds = { ...s };
  }
}

const sameRow = (a, b) => JSON.stringify({ ...a, score: 0 }) === JSON.stringify({ ...b, score: 0 }) && a.score === b.score;

/** Every JS answer (those given before Python was up, then each as it comes), held against the
 * core's: a difference is an error (the core is the truth; ADR 0062, 0055). */
let checkingNow = false;
async function checkFirstAnswers() {
  if (checkingNow) return; // the loop running takes what was queued since
  checkingNow = true;
  try {
    await checkQueued();
  } finally {
    checkingNow = false;
  }
}
async function checkQueued() {
  while (toCheck.length) {
    const [query, topK, group, js] = toCheck.shift();
    const core = await ask("search", { query, mode: "bm25", topK, group });
    coreHolds = { query, mode: "bm25", topK, group };
    firstAnswer.checked += 1;
    const same = core.results.length === js.results.length &&
      core.results.every((r, i) => sameRow(r, js.results[i])) &&
      JSON.stringify(core.expansions) === JSON.stringify(js.expansions) &&
      JSON.stringify(core.groups) === JSON.stringify(js.groups) &&
      core.abstained === js.abstained && core.lexical_share === js.lexical_share &&
      core.absent_name === js.absent_name &&
      JSON.stringify(core.lexical_bar) === JSON.stringify(js.lexical_bar);
    if (!same) {
      firstAnswer.mismatches.push({ query, js: js.results.map((r) => r.chunk_id), core: core.results.map((r) => r.chunk_id) });
      console.error(`groundkit: the page's first answer for ${JSON.stringify(query)} differs from the core's`);
    }
  }
}

/** links.json, or null (results then show their source only) when it cannot be read. */
async function fetchLinks(url) {
  try {
    const response = await fetch(url);
    if (!response.ok) throw new Error(`HTTP ${response.status}`);
    return await response.json();
  } catch (e) {
    console.error(`groundkit: ${url} could not be read (${e.message}): results link to no page`);
    return null;
  }
}

/** The rendered page of a result (with its heading's anchor where known), or null. */
function pageLink(r) {
  const page = current === "bundled" ? links?.pages?.[r.source] : null;
  if (!page) return null;
  const anchor = page.anchors?.[r.heading.join("\u001f")];
  return new URL(anchor ? `${page.url}#${anchor}` : page.url, siteUrl).href;
}

function drawPage() {
  document.title = site.title;
  $("#title").textContent = site.title;
  const ui = site.ui ?? { debug: true, local_files: true }; // a site from before the flags
  document.body.dataset.debugUi = ui.debug ? "on" : "off";
  $("#mode").hidden = !ui.debug;
  $('label[for="mode"]').hidden = !ui.debug; // its screen-reader label goes with it
  $("#drop-panel").hidden = !ui.local_files;
}

function showCollection(info) {
  current = info.kind;
  defaultMode = info.semantic ? "hybrid" : "bm25";
  if (!PAGE) return;
  const what = info.kind === "bundled" ? "" : "your dropped files: ";
  const debug = document.body.dataset.debugUi === "on"; // passages and models: the owner's words
  $("#collection-info").textContent =
    `Searching ${what}${info.documents} documents` +
    (debug ? `, ${info.chunks} passages` : "") +
    (debug && info.embedder ? `, vectors by ${info.embedder.model ?? info.embedder.provider}` : "");
  const modes = $("#mode");
  modes.replaceChildren(...info.modes.map((m) => new Option(m, m)));
  modes.disabled = info.modes.length < 2;
  if (info.semantic) modes.value = "hybrid";
  $("#semantic").checked = Boolean(info.semantic);
  $("#semantic").disabled = info.kind !== "bundled";
  $("#results").replaceChildren();
  $("#search-meta").textContent = "";
  $("#viewer").hidden = true;
  $("#back-to-bundled").hidden = info.kind === "bundled";
}

// ---------- search and results ----------
// The page lists pages, each with its best passages (issue 38.4): the core's GroupOptions.
const PAGES = 10;
const PASSAGES_PER_PAGE = 3;
let debounce = null;
function onInput() {
  clearTimeout(debounce);
  debounce = setTimeout(() => ready && $("#query").value.trim() && runSearch(), 250);
}

async function runSearch(event) {
  event?.preventDefault();
  clearTimeout(debounce);
  const query = $("#query").value.trim();
  const meta = $("#search-meta");
  if (!query) {
    results = [];
    $("#results").replaceChildren();
    meta.textContent = "Type a few words to search.";
    meta.dataset.query = "";
    return;
  }
  if (!ready) {
    meta.textContent = "Your search will run as soon as the index has loaded.";
    return;
  }
  const seq = ++searchSeq;
  const mode = $("#mode").value;
  let out;
  try {
    out = await answer(query, mode, PAGES, PASSAGES_PER_PAGE);
  } catch (e) {
    if (seq !== searchSeq) return;
    console.error(`groundkit: search for ${JSON.stringify(query)} failed: ${e.message}`);
    showMessage("Something went wrong with this search. Try other words.");
    meta.textContent = "";
    return;
  }
  if (seq !== searchSeq) return; // a newer search is on its way
  results = out.results; // page by page (out.groups: how many passages each page has)
  shown = { query, mode, topK: PAGES, group: PASSAGES_PER_PAGE, by: out.by };
  if (metrics.firstResultMs === undefined) mark("firstResultMs");
  metrics.lastQueryMs = out.ms;
  const n = results.length;
  const pages = out.groups?.length ?? n;
  // "nothing here": words matched, but too few of the question's for these documents to be
  // about it (the collection's calibrated bar, adr/0069), or it names a thing they never
  // mention (absent_name, adr/0080); shown as an empty answer is
  const nothing = Boolean(out.abstained);
  meta.textContent = n ? `${pages} page${pages === 1 ? "" : "s"} for “${query}”` : `${nothing ? "Nothing here" : "No results"} for “${query}”`;
  Object.assign(meta.dataset, { stage: out.stage, query, ms: out.ms.toFixed(2), abstained: nothing ? "yes" : "no" });
  const floor = out.floor; // dense and hybrid: the site's own floor, or the model's (adr/0070)
  meta.title = `${out.ms.toFixed(1)} ms · ${out.stage}` + (out.lexical_bar ? ` · evidence ${out.lexical_share.toFixed(3)}, bar ${out.lexical_bar.min_lexical_share ?? "none"} (${out.lexical_bar.source})` : "") +
    (floor ? ` · similarity ${floor.dense_best?.toFixed(3) ?? "none"}, floor ${floor.min_similarity} (${floor.source})` +
      (floor.lexical_share_source ? `, lexical share ${out.lexical_share.toFixed(3)}, bar ${floor.min_lexical_share} (${floor.lexical_share_source})` : "") : "");
  const list = $("#results");
  list.replaceChildren();
  const someWords = nothing && (out.lexical_share ?? 0) > 0; // a share > 0: some words matched
  const why = out.absent_name ? `: they never mention “${out.absent_name}”.` // adr/0080
    : someWords ? ": some of its words appear, but not enough of them together." : ".";
  if (!n) showMessage(!nothing ? `No passage matches “${query}”. Try fewer or different words.`
    : `These documents don't seem to answer “${query}”${why} Try words the documents would use.`);
  let at = 0;
  for (const size of out.groups ?? results.map(() => 1)) {
    list.append(pageItem(results.slice(at, at + size), at));
    at += size;
  }
  if (n) await showSource(0, { scroll: false });
}

/** One page of a grouped search: its title (linked to the page), its best passages beneath
 * (Pagefind's sub-results), each titled by its own heading within the page. */
function pageItem(passages, first) {
  const li = document.createElement("li");
  li.className = "page";
  li.dataset.source = passages[0].source;
  const title = document.createElement("h3");
  title.className = "page-title";
  const page = current === "bundled" ? links?.pages?.[passages[0].source] : null;
  const name = pageTitle(passages[0]);
  if (page) {
    const a = document.createElement("a");
    a.href = new URL(page.url, siteUrl).href;
    a.textContent = name;
    title.append(a);
  } else title.textContent = name;
  const list = document.createElement("ol");
  list.className = "passages";
  passages.forEach((r, k) => list.append(resultItem(r, first + k, name)));
  li.append(title, list);
  return li;
}

const pageTitle = (r) => (r.heading.length ? r.heading[0] : r.source.split("/").pop());

function resultItem(r, i, page = null) {
  const li = document.createElement("li");
  li.className = "result";
  Object.assign(li.dataset, { index: i, source: r.source, start: r.start_offset, end: r.end_offset, title: resultTitle(r) });
  const title = document.createElement("h3");
  title.className = "title";
  const url = pageLink(r);
  if (url) { // the page a visitor reads; the citation button below shows the source itself
    const a = document.createElement("a");
    a.href = url;
    a.textContent = passageTitle(r, page);
    title.append(a);
  } else title.textContent = passageTitle(r, page);
  const snippet = document.createElement("p");
  snippet.className = "snippet";
  snippet.append(...snippetNodes(r.display ?? r.text, r.display_marks ?? r.marks)); // no markup
  const head = document.createElement("div");
  head.className = "head";
  const cite = document.createElement("button");
  cite.type = "button";
  cite.className = "cite";
  cite.textContent = `${r.source}:${r.start_line}–${r.end_line}`;
  cite.title = "Show this passage in its source";
  cite.addEventListener("click", () => showSource(i, { scroll: true }));
  const score = document.createElement("span");
  score.className = "score";
  score.textContent = `score ${r.score.toFixed(4)}`;
  score.hidden = document.body.dataset.debugUi !== "on"; // an owner's number, not a visitor's
  const verdict = document.createElement("span");
  verdict.className = "verdict";
  verdict.setAttribute("aria-live", "polite");
  const verify = document.createElement("button");
  verify.type = "button";
  verify.className = "verify";
  verify.textContent = "Verify";
  verify.title = "Re-read the source and check it still holds this passage";
  verify.addEventListener("click", () => verifyResult(i, li));
  head.append(cite, score, verdict, verify);
  li.append(title, snippet, head);
  return li;
}

/** A passage's title under its page: its headings below the page's own title. */
function passageTitle(r, page) {
  const below = page !== null && r.heading[0] === page ? r.heading.slice(1) : null;
  return below === null ? resultTitle(r) : below.length ? below.join(" › ") : "Top of the page";
}

const resultTitle = (r) => (r.heading.length ? r.heading.join(" › ") : r.source.split("/").pop());

/**
 * The snippet: about `width` characters of `text` centred on the marked query words, the
 * words in <mark>. `marks` are code-point spans into `text` (from the worker); newlines are
 * left to CSS to fold, so the marked text stays an exact slice of the cited text.
 */
function snippetNodes(text, marks, width = 240) {
  const spans = marks.map(([s, e]) => spanToUtf16(text, s, e));
  let from = 0;
  let to = text.length;
  if (text.length > width) {
    // The window of `width` holding the most marks; then centred on them.
    let best = [0, 0];
    for (let i = 0; i < spans.length; i++) {
      let j = i;
      while (j + 1 < spans.length && spans[j + 1][1] - spans[i][0] <= width) j++;
      if (j - i + 1 > best[1] - best[0]) best = [i, j + 1];
    }
    const centre = spans.length ? (spans[best[0]][0] + spans[best[1] - 1][1]) / 2 : 0;
    from = Math.max(0, Math.min(text.length - width, Math.round(centre - width / 2)));
    to = Math.min(text.length, from + width);
    if (from > 0) from = nextBoundary(text, from);
    if (to < text.length) to = prevBoundary(text, to);
  }
  const nodes = [];
  if (from > 0) nodes.push("… ");
  let at = from;
  for (const [s, e] of spans) {
    if (e <= at || s >= to) continue;
    const a = Math.max(s, at);
    const b = Math.min(e, to);
    if (a > at) nodes.push(text.slice(at, a));
    const m = document.createElement("mark");
    m.textContent = text.slice(a, b);
    nodes.push(m);
    at = b;
  }
  if (at < to) nodes.push(text.slice(at, to));
  if (to < text.length) nodes.push(" …");
  return nodes;
}
const isSpace = (ch) => /\s/.test(ch);
function nextBoundary(text, i) {
  const stop = Math.min(text.length, i + 20);
  for (let k = i; k < stop; k++) if (isSpace(text[k])) return k + 1;
  return i;
}
function prevBoundary(text, i) {
  const stop = Math.max(0, i - 20);
  for (let k = i; k > stop; k--) if (isSpace(text[k - 1])) return k - 1;
  return i;
}

function showMessage(text) {
  const li = document.createElement("li");
  li.className = "message";
  li.textContent = text;
  $("#results").replaceChildren(li);
}

async function sourceBytes(source) {
  const have = sourceCache.get(source);
  if (have || current === "dropped") return have;
  const url = new URL(site.sources.url + source.split("/").map(encodeURIComponent).join("/"), siteUrl);
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  sourceCache.set(source, bytes);
  return bytes;
}

async function showSource(i, { scroll }) {
  const r = results[i];
  const viewer = $("#viewer");
  document.querySelectorAll(".result.selected").forEach((el) => el.classList.remove("selected"));
  document.querySelector(`.result[data-index="${i}"]`)?.classList.add("selected");
  viewer.hidden = false;
  viewer.dataset.index = i;
  $("#viewer-title").textContent = `${r.source}, lines ${r.start_line}–${r.end_line}`;
  const pre = $("#source-text");
  let text;
  try {
    const bytes = await sourceBytes(r.source);
    text = decodeSource(bytes);
    if (r.extracted) { // the offsets index the extractor's text (HTML, PDF), not the file
      await coreResults();
      const send = current === "bundled" && !sentToWorker.has(r.source);
      const got = await ask("citedSource", { index: i, source: r.source, bytes: send ? bytes : null });
      if (send) sentToWorker.add(r.source);
      if (got.error) throw new Error(got.error);
      text = got.text;
    }
  } catch (e) {
    console.error(`groundkit: source ${r.source} could not be loaded: ${e.message}`);
    pre.replaceChildren("This source could not be loaded right now.");
    return;
  }
  if (results[i] !== r) return; // a newer search replaced the results
  const [s, e] = spanToUtf16(text, r.start_offset, r.end_offset);
  const cited = document.createElement("mark");
  cited.id = "cited";
  cited.textContent = text.slice(s, e);
  Object.assign(cited.dataset, { start: r.start_offset, end: r.end_offset, utf16Start: s, utf16End: e });
  cited.dataset.matches = String(text.slice(s, e) === r.text);
  pre.replaceChildren(text.slice(0, s), cited, text.slice(e));
  $("#viewer-offsets").textContent = cited.dataset.matches === "true" ? "" :
    "The source has changed since it was indexed: the passage is no longer here.";
  $("#viewer-offsets").title = `code points [${r.start_offset}:${r.end_offset}] = UTF-16 [${s}:${e}]`;
  // Scroll the source pane only (scrollIntoView would scroll the page too) ...
  pre.scrollTop = Math.max(0, cited.offsetTop - pre.clientHeight / 4);
  // ... unless the viewer sits below the results (a phone): then bring it into view.
  if (scroll && matchMedia("(max-width: 800px)").matches) viewer.scrollIntoView({ block: "start" });
}

async function verifyResult(i, li) {
  const out = li.querySelector(".verdict");
  out.textContent = "checking…";
  out.dataset.verdict = "";
  try {
    const r = results[i];
    await coreResults();
    let bytes = null;
    if (current === "bundled" && !sentToWorker.has(r.source)) {
      bytes = await sourceBytes(r.source);
      sentToWorker.add(r.source);
    }
    const v = await ask("verify", { index: i, source: r.source, bytes });
    out.textContent = v.verdict;
    out.dataset.verdict = v.verdict;
    out.title = v.reason;
  } catch (e) {
    console.error(`groundkit: verify failed: ${e.message}`);
    out.textContent = "could not check";
    out.dataset.verdict = "error";
    out.title = String(e.message);
  }
}

// ---------- semantic search (ADR 0035): the model is fetched only when a visitor asks ----------
async function toggleSemantic() {
  const box = $("#semantic");
  if (!box.checked) { // keyword search again; the model stays loaded for the next time
    $("#mode").value = "bm25";
    if ($("#query").value.trim()) await runSearch();
    return;
  }
  if (!ready) {
    box.checked = false;
    return;
  }
  box.disabled = true;
  const started = performance.now();
  try {
    progress("semantic", "Starting the search engine…");
    await bootPython();
    const info = await ask("semantic");
    metrics.semanticMs = Math.round(performance.now() - started);
    showCollection(info);
    progress("ready", `Semantic search is on (${(metrics.semanticMs / 1000).toFixed(1)} s to start).`, 1);
    if ($("#query").value.trim()) await runSearch();
  } catch (e) {
    console.error(`groundkit: semantic search could not start: ${e.message}`);
    box.checked = false;
    progress("ready", "Semantic search could not start in this browser; keyword search still works.", 1);
  } finally {
    box.disabled = current !== "bundled";
  }
}

// ---------- dropped files: indexed in memory, in the worker ----------
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
  if (!ready) {
    $("#drop-report").textContent = "Please wait until the search has loaded, then drop the files again.";
    return;
  }
  const files = [];
  const started = performance.now();
  progress("index", `Indexing ${pairs.length} file${pairs.length === 1 ? "" : "s"} in this page…`);
  try {
    for (const [name, file] of pairs) {
      files.push({ rel: safePath(name), bytes: new Uint8Array(await file.arrayBuffer()) });
    }
    await bootPython();
    const info = await ask("index", { files, embedder: $("#drop-embedder").checked ? "hash" : null });
    sourceCache.clear();
    sentToWorker.clear();
    for (const f of files) sourceCache.set(f.rel, f.bytes);
    showCollection(info);
    const refused = info.report.refused.map((r) => `${r.source}: ${r.message}`);
    $("#drop-report").textContent = `${info.report.summary}` +
      (refused.length ? `\nNot indexed:\n${refused.join("\n")}` : "");
    progress("ready", `Indexed in ${((performance.now() - started) / 1000).toFixed(2)} s`, 1);
    if ($("#query").value.trim()) await runSearch();
  } catch (e) {
    console.error(`groundkit: indexing the dropped files failed: ${e.message}`);
    $("#drop-report").textContent = "These files could not be indexed.";
    progress("ready", "", 1);
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
  $("#back-to-bundled").addEventListener("click", async () => {
    sourceCache.clear();
    sentToWorker.clear();
    showCollection(await ask("openBundled"));
    $("#drop-report").textContent = "";
  });
}

// ---------- the JS API (README "Your own search UI"; ADR 0048) ----------
/**
 * search(query, {mode, topK}) -> {query, mode, stage, ms, results}: each result a plain object
 * with title, url (its rendered page, or null), source, heading, snippet (its text without
 * markup), text (the cited text: source[start_offset:end_offset], code points), start_offset,
 * end_offset, start_line, end_line, score, rank. mode defaults to the page's (bm25, or hybrid
 * with semantic search on). Searches the collection the page has open; waits for it to load.
 * group: N > 0 lists topK pages with up to N passages each, results page by page and groups
 * the number of passages of each page (as the page shows them; GroupOptions in the core).
 * (search(query, mode, topK), positional, is still accepted.)
 */
async function apiSearch(query, options = {}, topKArg = 10) {
  const { mode = PAGE ? $("#mode").value : defaultMode, topK = topKArg, group = 0 } =
    typeof options === "string" ? { mode: options } : options;
  await window.groundkit.ready;
  if (!ready) throw new Error("groundkit: the search could not start (see the console)");
  const out = await answer(query, mode, topK, group);
  const results = out.results.map((r) => ({
    ...r, title: resultTitle(r), url: pageLink(r), snippet: r.display ?? r.text }));
  const answerOut = { query, mode, stage: out.stage, ms: out.ms, results };
  if (out.groups) answerOut.groups = out.groups;
  // "nothing here" and why, where the site ships a bar (adr/0069) or the mode judges evidence;
  // floor: dense and hybrid's floor and share with their sources (adr/0070)
  for (const key of ["abstained", "lexical_share", "lexical_bar", "absent_name", "floor"]) if (key in out) answerOut[key] = out[key];
  return answerOut;
}
window.groundkit.search = apiSearch;

// ---------- measurement hooks (used by web/e2e and bench/; harmless otherwise) ----------
window.groundkit.wasmHeapBytes = () => ask("wasmHeapBytes");
window.groundkit.python = () => bootPython(); // start Python now (the browser test, measurement)
window.groundkit.pythonUp = () => pythonUp;
window.groundkit.embed = (query) => ask("embed", { query }); // after semantic search is on
window.groundkit.fetched = () => ask("fetched"); // [path, bytes] of every index/source file the worker fetched
window.groundkit.bench = (queries, repeats = 3, mode = "bm25", topK = 10) =>
  ask("bench", { queries, repeats, mode, topK });

if (PAGE) {
  $("#search").addEventListener("submit", runSearch);
  $("#semantic").addEventListener("change", toggleSemantic);
  $("#query").addEventListener("input", onInput);
  $("#back-to-results").addEventListener("click", () => $("#results").scrollIntoView({ block: "start" }));
  setupDrop();
}
window.groundkit.ready = start().catch((e) => {
  if (!PAGE) return console.error(`groundkit: the search could not start: ${e.message}`);
  if (e.refused) {
    fail("This link asks the search to load files from another website, which it refuses. " +
      "Open the page without the extra address parameters.", e.message, "refused");
  } else {
    fail("Search is unavailable: it could not start in this browser. Reload the page to try " +
      "again later.", `the search app could not start: ${e.message}`, "unavailable");
  }
});
