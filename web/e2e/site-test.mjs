#!/usr/bin/env node
// End-to-end test of a site written by `groundkit build-site`, in Debian's headless Chromium
// (/usr/bin/chromium) driven by playwright-core, offline:
//  - serves the site with `python3 -m http.server` on 127.0.0.1 and aborts (and fails on) every
//    request that leaves that origin;
//  - searches in the page and checks the results against CPython's answer on the same
//    collection file (sources, offsets, lines, text, scores), the highlighted span (code points
//    -> UTF-16, astral characters before it), and a "verified" verdict, all in the DOM;
//  - indexes dropped files (in memory in the page) holding astral characters and checks the same;
//  - with --django-site: Django's documentation as its owner ships it (no markup, no internal
//    words, titles linking to docs.djangoproject.com, a status line that finishes);
//  - with --language-site: a --language de,fr --snapshot site, its Snowball stemmers in the
//    page's wheel and snapshot, answering as CPython does (ADR 0045);
//  - saves screenshots. --measure also times cold start, query latency (page vs CPython, the
//    same queries and collection) and page memory, and writes them as JSON.
//
//   node web/e2e/site-test.mjs --site DIR [--python PY] [--out DIR] [--measure] [--headed]
//     [--snapshot-site DIR] [--semantic-site DIR] [--odd-site DIR] [--django-site DIR]
//     [--language-site DIR]
//   node web/e2e/site-test.mjs --site DIR --bench-only QUERIES.json [--repeats N]
//     (any site: cold start to the first query's results, latency page vs CPython, memory)
// Exit: 0 passed, 1 a check failed, 99 the harness failed. CHROMIUM overrides the browser.
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const SITE = path.resolve(opt("--site", path.join(HERE, "build", "site")));
const OUT = path.resolve(opt("--out", path.join(HERE, "build")));
const PYTHON = opt("--python", process.env.PYTHON || "python3");
const BENCH_ONLY = opt("--bench-only", null);
const SNAPSHOT_SITE = opt("--snapshot-site", null); // a site built with --snapshot
const SEMANTIC_SITE = opt("--semantic-site", null); // built with --embedder minilm --ort-dir
const ODD_SITE = opt("--odd-site", null); // sources named with ?, #, %2F, %2e (ODD_NAMES)
const DJANGO_SITE = opt("--django-site", null); // Django's docs, built as a site owner ships them
const LANGUAGE_SITE = opt("--language-site", null); // German and French, --language de,fr --snapshot
// Each query asks for one file of the language site in other inflected forms (run.sh writes them).
const LANGUAGE_QUERIES = { "Zahn putzen": "de/zaehne.md", "blühende Blume": "de/garten.md",
  "les fleurs fleurissent": "fr/jardin.md", "dent brossée": "fr/dents.md" };
// Each file of the odd site holds one word of its own (run.sh writes them).
const ODD_NAMES = { "what?now.md": "quokkaquery", "see#here.md": "quokkafragment",
  "a%2Fb.md": "quokkaslash", "%2e%2e.md": "quokkadots" };
const MEASURE = argv.includes("--measure") || BENCH_ONLY !== null;
const TIMEOUT = 120_000;

let failed = false;
const check = (ok, what) => {
  console.log(`${ok ? "PASS" : "FAIL"} ${what}`);
  if (!ok) failed = true;
};

// CPython's answer on the very file the site serves.
function cpython(code, ...args) {
  const r = spawnSync(PYTHON, ["-c", code, ...args], { encoding: "utf-8" });
  if (r.status !== 0) throw new Error(`${PYTHON} failed: ${r.stderr}`);
  return JSON.parse(r.stdout);
}
const CPY_SEARCH = `
import json, sys, groundkit.site
with groundkit.site.open_site(sys.argv[1]) as r:  # the site's index/, as the page reads it
    mode = sys.argv[4] if len(sys.argv) > 4 else "bm25"  # the page expands words (ADR 0046)
    res = r.search(sys.argv[3], top_k=10, mode=mode, prefix=mode != "dense", fuzzy=mode != "dense",
        group=groundkit.GroupOptions(passages=3))  # the page lists pages (issue 38.4)
    print(json.dumps([{"source": x.citation.source, "start": x.citation.start_offset,
        "end": x.citation.end_offset, "start_line": x.citation.start_line,
        "end_line": x.citation.end_line, "text": x.citation.text, "score": x.score,
        "verdict": r.verify(x).verdict} for x in res.results]))`;
// CPython's answer for a finished word (fuzzy, no prefix): what a typo of it should find.
const CPY_WORD = `
import json, sys, groundkit.site
with groundkit.site.open_site(sys.argv[1]) as r:
    res = r.search(sys.argv[2], top_k=3, mode="bm25", fuzzy=True)
    print(json.dumps([{"source": x.citation.source, "start": x.citation.start_offset} for x in res.results]))`;
// CPython's hybrid/dense answer with the native minilm (groundkit_native), and its query vector.
const CPY_SEMANTIC = `
import json, sys, groundkit.site
out = {}
with groundkit.site.open_site(sys.argv[1]) as r:
    for q in json.loads(sys.argv[2]):
        out[q] = {"vector": r.embedder.embed_query(q), "floor": {}}
        for mode in ("hybrid", "dense"):
            got = r.search(q, top_k=10, mode=mode, prefix=mode != "dense", fuzzy=mode != "dense")
            out[q][mode] = [[x.chunk_id, x.score] for x in got.results]
            m = got.metadata
            out[q]["floor"][mode] = [m["floor_source"], m["min_similarity"], m["abstained"]]
print(json.dumps(out))`;
// Queries the semantic check compares (the sample's own subjects, and ones no word matches).
const SEMANTIC_QUERIES = ["how do I report a leak", "water tastes of chlorine", "my tap water is brown",
  "who do I call when the street floods", "paying an invoice late", "protective equipment for workers",
  "zzzz nothing", "Überschwemmung im Keller"];
// The page's query vector differs from onnxruntime's native one in the last bits (another
// build of the kernels; the pooling summed in float64 here, float32 there): scores agree to this.
const SCORE_TOLERANCE = 1e-5;

// Each result's rendered page, as links.json names it for the result's source and heading path.
const CPY_LINKS = `
import json, sys, groundkit.site
from groundkit.retrieval.display import plain_text
links = json.load(open(sys.argv[1] + "/links.json", encoding="utf-8"))["pages"]
with groundkit.site.open_site(sys.argv[1]) as r:
    out = []
    group = groundkit.GroupOptions(passages=int(sys.argv[3])) if sys.argv[3] != "0" else None
    for x in r.search(sys.argv[2], top_k=10, mode="bm25", prefix=True, fuzzy=True,
            group=group).results:  # as the page searches
        page = links.get(x.citation.source)
        heading = [plain_text(h)[0] for h in x.metadata.get("heading_path", [])]
        anchor = (page or {}).get("anchors", {}).get("\x1f".join(heading))
        out.append({"source": x.citation.source, "start": x.citation.start_offset,
            "end": x.citation.end_offset, "text": x.citation.text, "heading": heading,
            "url": None if page is None else page["url"] + ("#" + anchor if anchor else "")})
print(json.dumps(out))`;

const CPY_BENCH = `
import json, sys, time, groundkit.site
queries, repeats = json.loads(sys.argv[3]), int(sys.argv[4])
with groundkit.site.open_site(sys.argv[1]) as r:
    for q in queries: r.search(q, top_k=10)  # warm, as the page is after its first query
    per_query = {q: [] for q in queries}
    for _ in range(repeats):
        for q in queries:
            t = time.perf_counter(); r.search(q, top_k=10); per_query[q].append((time.perf_counter() - t) * 1000)
medians = {q: sorted(t)[len(t) // 2] for q, t in per_query.items()}
times = sorted(x for t in per_query.values() for x in t)
print(json.dumps({"n": len(times), "median_ms": times[len(times) // 2],
    "p95_ms": times[int(len(times) * 0.95)], "total_ms": sum(times),
    "sum_of_medians_ms": sum(medians.values()), "per_query_median_ms": medians}))`;

function startServer(dir) {
  const srv = spawn(PYTHON, ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", dir],
    { stdio: ["ignore", "pipe", "pipe"] });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error("http.server did not start")), 15000);
    srv.stdout.on("data", (d) => {
      const m = /port (\d+)/.exec(String(d));
      if (m) { clearTimeout(timer); resolve({ srv, port: Number(m[1]) }); }
    });
    srv.stderr.on("data", () => {}); // access log
    srv.on("exit", (c) => reject(new Error(`http.server exited ${c}`)));
  });
}

const astralBefore = (text, cp) => [...text].slice(0, cp).filter((ch) => ch.codePointAt(0) > 0xffff).length;

async function search(page, query) {
  await page.fill("#query", query);
  await page.click("#search-button");
  await page.waitForFunction((q) => document.querySelector("#search-meta").dataset.query === q, query);
  await page.waitForSelector("#cited", { timeout: 10_000 }).catch(() => {});
  return results(page);
}

const results = (page) => page.$$eval("#results .result", (lis) => lis.map((li) => ({
  source: li.dataset.source, start: Number(li.dataset.start), end: Number(li.dataset.end),
  cite: li.querySelector(".cite").textContent,
  score: Number(li.querySelector(".score").textContent.replace("score ", "")),
  title: li.dataset.title, // its whole heading path (the page shows the page's title above it)
  href: li.querySelector(".title a")?.href ?? null,
  marks: [...li.querySelectorAll(".snippet mark")].map((m) => m.textContent),
})));

// A browser context whose every request off 127.0.0.1:<port> is aborted and recorded (the
// page's and its worker's), with long main-thread tasks and console errors collected.
async function openPage(browser, origin, offsite, options = {}) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...options });
  await context.route("**/*", (route) => {
    const u = route.request().url();
    if (u.startsWith(origin + "/")) return route.continue();
    offsite.push(u);
    return route.abort();
  });
  await context.addInitScript(() => {
    window.__longTasks = [];
    window.__cspViolations = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
      for (const e of list.getEntries()) (window.__longTaskAt ??= []).push([Math.round(e.startTime), Math.round(e.duration)]);
    }).observe({ type: "longtask", buffered: true });
    document.addEventListener("securitypolicyviolation", (e) => window.__cspViolations.push(e.blockedURI));
  });
  const page = await context.newPage();
  page.consoleErrors = [];
  page.on("console", (m) => {
    if (m.type() === "error") page.consoleErrors.push(m.text());
    if (m.type() === "error" || m.type() === "warning") console.log(`[console.${m.type()}] ${m.text()}`);
  });
  page.on("pageerror", (e) => console.log(`[pageerror] ${e}`));
  return page;
}

const noHorizontalScroll = (page) => page.evaluate(() =>
  document.documentElement.scrollWidth <= window.innerWidth && document.body.scrollWidth <= window.innerWidth);

async function showAndVerify(page, index) {
  await page.click(`#results .result[data-index="${index}"] .cite`);
  await page.waitForFunction((i) => {
    const m = document.querySelector("#cited");
    const li = document.querySelector(`#results .result[data-index="${i}"]`);
    return m && li && m.dataset.start === li.dataset.start && m.dataset.end === li.dataset.end;
  }, index);
  const cited = await page.$eval("#cited", (m) => ({ text: m.textContent, ...m.dataset }));
  await page.click(`#results .result[data-index="${index}"] .verify`);
  const verdictSel = `#results .result[data-index="${index}"] .verdict`;
  await page.waitForFunction((s) => ["verified", "drifted", "unresolvable", "error"]
    .includes(document.querySelector(s).dataset.verdict), verdictSel);
  const verdict = await page.$eval(verdictSel, (v) => ({ verdict: v.dataset.verdict, reason: v.title }));
  return { cited, verdict };
}

// Sources whose names hold URL syntax are searched, shown and verified as themselves (every
// URL the page and its worker build is encoded), and an edited copy of a source on the site
// is drifted, not verified, even where the cited text is unchanged (issue 29, item 13).
async function checkOddNames(browser, dir, offsite) {
  const site = JSON.parse(fs.readFileSync(path.join(dir, "site.json"), "utf-8"));
  const s = await startServer(dir);
  const origin = `http://127.0.0.1:${s.port}`;
  try {
    const open = async () => {
      const page = await openPage(browser, origin, offsite);
      await page.goto(`${origin}/`, { waitUntil: "domcontentloaded" });
      await page.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), null, { timeout: TIMEOUT });
      return page;
    };
    const page = await open();
    for (const [name, word] of Object.entries(ODD_NAMES)) {
      const found = await search(page, word);
      check(found.length >= 1 && found[0].source === name, `odd names: "${word}" finds ${name} (got ${found[0]?.source})`);
      const snippetText = await page.$eval('#results .result[data-index="0"] .snippet', (p) => p.textContent);
      check(!snippetText.includes("# ") && found[0].marks.includes(word),
        `odd names: ${name}'s snippet shows no markup and marks the word ("${snippetText.slice(0, 40)}")`);
      const v = await showAndVerify(page, 0);
      check(v.cited.text.includes(word) && v.cited.text.startsWith("# Odd name"),
        `odd names: ${name}'s cited text is shown from its own file, markup and all`);
      check(v.verdict.verdict === "verified", `odd names: ${name} verifies (${v.verdict.verdict}: ${v.verdict.reason})`);
    }
    check(page.consoleErrors.length === 0, `odd names: no console error (${page.consoleErrors.join("; ")})`);
    // A site built without --debug-ui and --allow-local-files shows a visitor's page only.
    const visitor = await page.evaluate(() => ({
      title: document.title,
      modeShown: !document.querySelector("#mode").hidden,
      scoresShown: [...document.querySelectorAll("#results .score")].some((e) => !e.hidden),
      dropShown: !document.querySelector("#drop-panel").hidden,
      words: document.body.innerText,
      status: document.querySelector("#progress-text").textContent,
      state: document.body.dataset.state,
    }));
    check(visitor.title === "Search", `visitor page: titled "Search" by default (${visitor.title})`);
    check(!visitor.modeShown && !visitor.scoresShown && !visitor.dropShown,
      `visitor page: no mode menu, scores or drop panel (${JSON.stringify([visitor.modeShown, visitor.scoresShown, visitor.dropShown])})`);
    const internal = ["bm25", "Pyodide", "Python", "score ", "passages"].filter((w) => visitor.words.includes(w));
    check(internal.length === 0, `visitor page: no internal words on screen (${internal.join(", ")})`);
    check(visitor.state === "ready" && !/Downloading|KiB/.test(visitor.status),
      `visitor page: the status line ends ready after results and Verify ("${visitor.status}")`);
    await page.screenshot({ path: path.join(OUT, "site-visitor.png") });
    // --base-url /docs/ --url-rule same: the title links to the source's own name, encoded,
    // and opens in this tab (the citation button above still showed the source itself).
    const linked = await search(page, "quokkaquery");
    check(linked[0]?.href === `${origin}/docs/what%3Fnow.md`, `odd names: the title links to /docs/what%3Fnow.md (${linked[0]?.href})`);
    await Promise.all([page.waitForURL(`${origin}/docs/what%3Fnow.md`), page.click('#results .result[data-index="0"] .title a')]);
    check(page.url() === `${origin}/docs/what%3Fnow.md`, `odd names: the link opens in the same tab (${page.url()})`);
    await page.context().close();
    // Edit the site's copy of one source below its cited paragraph: the span still matches.
    const copy = path.join(dir, site.sources.url, "what?now.md");
    fs.appendFileSync(copy, "\nA line added to the site's copy after the build.\n");
    const again = await open();
    const found = await search(again, "quokkaquery");
    check(found[0]?.source === "what?now.md", "drift: the edited source is still found");
    const v = await showAndVerify(again, 0);
    check(v.verdict.verdict === "drifted" && v.verdict.reason.includes("not the file that was indexed"),
      `drift: an edited copy is drifted, not verified (${v.verdict.verdict}: ${v.verdict.reason})`);
    await again.context().close();
  } finally {
    s.srv.kill();
  }
}

// A German and French site (--language de,fr --snapshot): the restored snapshot already holds
// the Snowball stemmers and their release; every query finds its file first, with CPython's
// ranking and scores, and the citation verifies.
async function checkLanguages(browser, dir, offsite) {
  const s = await startServer(dir);
  const origin = `http://127.0.0.1:${s.port}`;
  try {
    const page = await openPage(browser, origin, offsite);
    await page.goto(`${origin}/`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), null, { timeout: TIMEOUT });
    for (const [query, file] of Object.entries(LANGUAGE_QUERIES)) {
      const found = await search(page, query);
      const want = cpython(CPY_SEARCH, dir, "default", query);
      check(found[0]?.source === file, `languages: "${query}" finds ${file} first (got ${found[0]?.source})`);
      check(JSON.stringify(found.map((r) => r.source)) === JSON.stringify(want.map((r) => r.source)),
        `languages: "${query}" ranks as CPython does (${found.map((r) => r.source)} vs ${want.map((r) => r.source)})`);
      const v = await showAndVerify(page, 0);
      check(v.verdict.verdict === "verified", `languages: "${query}"'s citation verifies (${v.verdict.verdict})`);
    }
    // ADR 0055: a --language site answers from the JS path (analysis.js's Snowball stemmers),
    // before Python and after Verify started it
    const fa = await page.evaluate(() => window.groundkit.firstAnswer);
    check(fa.answered === Object.keys(LANGUAGE_QUERIES).length,
      `languages: every search was answered by the page's JS path (${fa.answered} of ${Object.keys(LANGUAGE_QUERIES).length})`);
    check(page.consoleErrors.length === 0, `languages: no console error (${page.consoleErrors.join("; ")})`);
    await page.context().close();
  } finally {
    s.srv.kill();
  }
}

// Django's docs as a visitor searches them (issue 30): what each result shows is checked for
// reST left in it, the page for words only its owner should see, every title for a link to its
// rendered page on docs.djangoproject.com (as links.json names it for CPython's same result),
// the source view for a verified citation, and the status line for a finished state.
const DJANGO_BASE = "https://docs.djangoproject.com/en/5.2/";
const DJANGO_QUERIES = ["transaction atomic", "middleware", "queryset filter", "paginat", "middlware"];
const CPY_DJANGO = `
import json, sys, groundkit.site
from groundkit.retrieval.display import plain_text
try:
    links = json.load(open(sys.argv[1] + "/links.json", encoding="utf-8"))["pages"]
except FileNotFoundError:  # a site built without --base-url: no result links (a FAIL below)
    links = {}
out = {}
with groundkit.site.open_site(sys.argv[1]) as r:
    for q in json.loads(sys.argv[2]):  # as the page searches: bm25, prefix and typos expanded
        res = r.search(q, top_k=10, mode="bm25", prefix=True, fuzzy=True,
            group=groundkit.GroupOptions(passages=3)).results  # pages, as the page lists them
        rows = []
        for x in res:
            page = links.get(x.citation.source)
            heading = "\x1f".join(plain_text(h)[0] for h in x.metadata.get("heading_path", []))
            anchor = (page or {}).get("anchors", {}).get(heading)
            rows.append({"source": x.citation.source, "start": x.citation.start_offset,
                "end": x.citation.end_offset, "text": x.citation.text,
                "url": None if page is None else page["url"] + ("#" + anchor if anchor else "")})
        out[q] = rows
print(json.dumps(out))`;
// reST a visitor must never read in a title or snippet.
const RAW_MARKUP = [
  ["``double backticks``", /``/],
  [":role:`...`", /:[\w.+-]+(?::[\w.+-]+)*:`/],
  ["a row of = - ~ ^", /(^|\n)[ \t]*([=\-~^])\2{3,}[ \t]*(\n|$)/],
  [".. directive::", /(^|\n)[ \t]*\.\.[ \t]+[\w:-]+[ \t]*::/],
  [".. _label:", /(^|\n)[ \t]*\.\.[ \t]+_[^\n]*:/],
];
const INTERNAL_WORDS = [/bm25/i, /\bscore \d/i, /Pyodide/, /Search your own files/, /Search mode/, /\bpassages\b/];

async function checkDjango(browser, dir, offsite) {
  const want = cpython(CPY_DJANGO, dir, JSON.stringify(DJANGO_QUERIES));
  const s = await startServer(dir);
  const origin = `http://127.0.0.1:${s.port}`;
  const finished = async (page, what) => {
    const st = await page.evaluate(() => ({ state: document.body.dataset.state,
      text: document.querySelector("#progress-text").textContent,
      bar: getComputedStyle(document.querySelector("#progress-bar")).display }));
    check(st.state === "ready" && /^Ready\.?$/.test(st.text.trim()) && st.bar === "none",
      `django ${what}: the status line has finished ("${st.text}", state ${st.state}, progress bar ${st.bar})`);
  };
  const visitorOnly = async (page, what) => {
    const seen = await page.evaluate(() => ({ words: document.body.innerText,
      mode: document.querySelector("#mode").checkVisibility(),
      drop: document.querySelector("#drop-panel").checkVisibility(),
      scores: [...document.querySelectorAll("#results .score")].some((e) => e.checkVisibility()) }));
    const words = INTERNAL_WORDS.filter((w) => w.test(seen.words)).map(String);
    const colors = await page.evaluate(() => [document.querySelector("#results .title a") ??
      document.querySelector("#results .title"), document.querySelector("#results .cite")]
      .map((e) => (e ? getComputedStyle(e).color : "none")));
    check(colors[0] === colors[1], `django ${what}: result titles take the theme's link colour (${colors.join(" vs ")})`);
    check(words.length === 0 && !seen.mode && !seen.drop && !seen.scores,
      `django ${what}: no internal words (${words.join(", ") || "none"}), mode menu, drop panel or scores on screen`);
  };
  const shown = (page) => page.$$eval("#results .result", (lis) => lis.map((li) => ({
    source: li.dataset.source, start: Number(li.dataset.start), end: Number(li.dataset.end),
    title: li.dataset.title, snippet: li.querySelector(".snippet").textContent,
    href: li.querySelector(".title a")?.href ?? null })));
  const checkResults = (q, got) => {
    const rows = want[q];
    check(got.length > 0 && JSON.stringify(got.map((r) => [r.source, r.start, r.end])) ===
      JSON.stringify(rows.map((r) => [r.source, r.start, r.end])),
      `django "${q}": ${got.length} results, ranked as CPython ranks them (${got.slice(0, 2).map((r) => r.source).join(", ")})`);
    const raw = got.flatMap((r) => RAW_MARKUP.flatMap(([name, re]) => [r.title, r.snippet]
      .filter((t) => re.test(t)).map((t) => `${name} in ${r.source}: "${t.match(re)[0].trim()}"`)));
    check(raw.length === 0, `django "${q}": no raw markup in any title or snippet${raw.length ? ": " + raw.join("; ") : ""}`);
    check(got.every((r, i) => r.href !== null && r.href.startsWith(DJANGO_BASE) && r.href === rows[i]?.url),
      `django "${q}": every title links to its rendered page under ${DJANGO_BASE}, heading anchor as links.json names it (${got[0]?.href})`);
  };
  try {
    // ---- desktop: each query, its results, the top one's source view verified ----
    const page = await openPage(browser, origin, offsite);
    await page.goto(`${origin}/`, { waitUntil: "domcontentloaded" });
    await page.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), null, { timeout: TIMEOUT });
    check(await page.title() === "Django documentation", `django: the page is titled by --title (${await page.title()})`);
    for (const q of DJANGO_QUERIES) {
      await search(page, q);
      const got = await shown(page);
      checkResults(q, got);
      const v = await showAndVerify(page, 0);
      check(v.cited.text === want[q][0].text && v.verdict.verdict === "verified",
        `django "${q}": the top result's source view shows its cited text and verifies (${v.verdict.verdict}: ${v.verdict.reason})`);
    }
    const paginat = (await search(page, "paginat"), await shown(page));
    check(["ref/paginator.txt", "topics/pagination.txt"].includes(paginat[0]?.source),
      `django "paginat" (a word being typed) finds the pagination pages first (${paginat[0]?.source})`);
    // A typo finds first what its word finds as a finished word (fuzzy only): with prefix on,
    // the finished word also matches the words it begins (ADR 0061), which the typo does not.
    const typo = (await search(page, "middlware"), await shown(page));
    const word = cpython(CPY_WORD, dir, "middleware");
    check(typo[0] && typo[0].source === word[0]?.source && typo[0].start === word[0].start,
      `django "middlware" (a typo) finds first what "middleware" does (${typo[0]?.title} | ${word[0]?.source})`);
    const tx = (await search(page, "transaction atomic"), await shown(page));
    check(tx.some((r) => r.href?.startsWith(`${DJANGO_BASE}topics/db/transactions/#`)),
      `django "transaction atomic" links into ${DJANGO_BASE}topics/db/transactions/#... (${tx.map((r) => r.href).find((h) => h?.includes("/transactions/"))})`);
    const mw = (await search(page, "middleware"), await shown(page));
    const pages = await page.$$eval("#results > li.page", (lis) => lis.map((li) => li.dataset.source));
    check(pages.length >= 3 && new Set(pages).size === pages.length && mw.length > pages.length,
      `django "middleware": one entry per page (${pages.length} pages, ${mw.length} passages; top 3: ${pages.slice(0, 3).join(", ")})`);
    check(mw.some((r) => r.href === `${DJANGO_BASE}topics/http/middleware/#activating-middleware`),
      `django "middleware" links "Activating middleware" to ${DJANGO_BASE}topics/http/middleware/#activating-middleware`);
    await showAndVerify(page, mw.findIndex((r) => r.source === "topics/http/middleware.txt"));
    await visitorOnly(page, "desktop");
    await finished(page, "desktop");
    check(page.consoleErrors.length === 0, `django: no console error (${page.consoleErrors.join("; ")})`);
    check(await noHorizontalScroll(page), "django desktop: no horizontal scroll");
    await page.screenshot({ path: path.join(OUT, "django-desktop.png") });
    // ---- dark: prefers-color-scheme ----
    await page.emulateMedia({ colorScheme: "dark" });
    await search(page, "queryset filter");
    const dark = await page.evaluate(() => {
      const rgb = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
      return (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255;
    });
    check(dark < 0.2, `django dark: a dark page (background luminance ${dark.toFixed(2)})`);
    await visitorOnly(page, "dark");
    await finished(page, "dark");
    await page.screenshot({ path: path.join(OUT, "django-dark.png") });
    await page.context().close();
    // ---- a 390 px phone ----
    const phone = await openPage(browser, origin, offsite, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
    await phone.goto(`${origin}/`);
    await phone.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: TIMEOUT });
    await search(phone, "middleware");
    checkResults("middleware", await shown(phone));
    check(await noHorizontalScroll(phone), `django phone: no horizontal scroll (scrollWidth ${await phone.evaluate(() => document.documentElement.scrollWidth)})`);
    await visitorOnly(phone, "phone");
    await finished(phone, "phone");
    await phone.screenshot({ path: path.join(OUT, "django-phone.png") });
    check(phone.consoleErrors.length === 0, `django phone: no console error (${phone.consoleErrors.join("; ")})`);
    await phone.context().close();
    // ---- ?check=first-answer: the JS path's answers, plain, being typed and with typos, each
    // held to the core's once Python is up (ADR 0055); Python is asked for only by the test ----
    const held = await openPage(browser, origin, offsite);
    const runtime = [];
    held.on("request", (r) => new URL(r.url()).pathname.startsWith("/pyodide/") && runtime.push(r.url()));
    await held.goto(`${origin}/?check=first-answer`);
    await held.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: TIMEOUT });
    const typed = ["queryset filter", "queryset fil", "que", "paginat", "middlware", "midleware ordr",
      "select_related", "csrf tok", "timezone aware datetime", "signals post_save", "transacton atomc"];
    for (const q of typed) await held.evaluate((x) => window.groundkit.search(x), q);
    check(runtime.length === 0, `django: ${typed.length} searches answered with no request for Python's runtime (${runtime.slice(0, 2).join(", ") || "none"})`);
    await held.evaluate(() => window.groundkit.python());
    await held.waitForFunction((n) => window.groundkit.firstAnswer.checked >= n, typed.length, { timeout: TIMEOUT });
    await held.evaluate((x) => window.groundkit.search(x), "modelform"); // after Python: still JS, checked
    await held.waitForFunction((n) => window.groundkit.firstAnswer.checked >= n, typed.length + 1, { timeout: TIMEOUT });
    const fa = await held.evaluate(() => window.groundkit.firstAnswer);
    check(fa.answered === typed.length + 1 && fa.mismatches.length === 0,
      `django: every JS answer equals the core's (${fa.answered} answered, ${fa.checked} checked, mismatches ${JSON.stringify(fa.mismatches).slice(0, 300)})`);
    check(held.consoleErrors.length === 0, `django ?check=first-answer: no console error (${held.consoleErrors.join("; ")})`);
    await held.context().close();
  } finally {
    s.srv.kill();
  }
}

// The renderer processes' resident memory (Linux /proc): the JS heap figures leave out
// ArrayBuffers, where Pyodide's MEMFS keeps file contents (the collection) and the wasm heap.
function rendererRssMB() {
  let kb = 0;
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const cmd = fs.readFileSync(`/proc/${pid}/cmdline`, "utf-8");
      if (!cmd.includes("--type=renderer")) continue;
      const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf-8"));
      if (m) kb += Number(m[1]);
    } catch { /* gone */ }
  }
  return kb / 1024;
}

async function memory(page, cdp) {
  const { metrics } = await cdp.send("Performance.getMetrics");
  const m = Object.fromEntries(metrics.map((x) => [x.name, x.value]));
  const wasm = await page.evaluate(() => window.groundkit.wasmHeapBytes?.() ?? null);
  const r = (x) => Math.round(x * 10) / 10;
  return { jsHeapUsedMB: r(m.JSHeapUsedSize / 2 ** 20), jsHeapTotalMB: r(m.JSHeapTotalSize / 2 ** 20),
    wasmHeapMB: wasm === null ? null : r(wasm / 2 ** 20), rendererRssMB: r(rendererRssMB()) };
}

const SAMPLE_QUERIES = ["how do I report a leak", "chlorine residual target", "boil water notice",
  "who fixes a burst main", "lead service line replacement", "confined space entry permit",
  "pay my bill online", "discoloured water after flushing", "pressure zone alarm", "zzzz nothing"];

async function measure(page, cdp, indexDir, name, queries) {
  measured.memory = await memory(page, cdp);
  const reps = Number(opt("--repeats", "9"));
  await page.evaluate((q) => window.groundkit.bench(q, 1), queries); // warm, as CPython's loop
  measured.query_page = await page.evaluate(([q, r]) => window.groundkit.bench(q, r), [queries, reps]);
  measured.query_cpython = cpython(CPY_BENCH, indexDir, name, JSON.stringify(queries), String(reps));
  measured.query_ratio = measured.query_page.sum_of_medians_ms / measured.query_cpython.sum_of_medians_ms;
  for (const k of ["query_page", "query_cpython"]) {
    const m = measured[k];
    console.log(`${k}: ${m.n} searches, median ${m.median_ms.toFixed(2)} ms, p95 ${m.p95_ms.toFixed(2)} ms, ` +
      `sum of per-query medians ${m.sum_of_medians_ms.toFixed(2)} ms`);
  }
  console.log(`query latency ratio page/CPython (sum of per-query medians): ${measured.query_ratio.toFixed(2)}`);
  measured.memory_after_queries = await memory(page, cdp);
  console.log(`memory: ${JSON.stringify(measured.memory)}; after the queries ${JSON.stringify(measured.memory_after_queries)}`);
}

// Semantic search in the page (ADR 0035): nothing of the model before the visitor turns it on;
// then hybrid and dense answers equal CPython's (native onnxruntime) within SCORE_TOLERANCE.
async function checkSemantic(browser, semSite, offsite) {
  const s3 = await startServer(semSite);
  const semOrigin = `http://127.0.0.1:${s3.port}`;
  try {
    const page = await openPage(browser, semOrigin, offsite);
    const requested = [];
    page.on("request", (r) => requested.push(new URL(r.url()).pathname));
    page.on("requestfinished", async (r) => {
      const sizes = await r.sizes().catch(() => null);
      if (sizes) (page.bytes ??= {})[new URL(r.url()).pathname] = sizes.responseBodySize;
    });
    await page.goto(`${semOrigin}/`, { waitUntil: "domcontentloaded" });
    await search(page, "how do I report a leak");
    check(await page.isVisible("#semantic-label") && !(await page.isChecked("#semantic")),
      "a --ort-dir site offers a Semantic switch, off at first");
    check(!requested.some((p) => p.startsWith("/semantic") || p === "/index/vectors.bin"),
      "nothing under semantic/, nor semantic.js, nor the vectors, is fetched before a visitor turns semantic search on");
    const started = Date.now();
    await page.check("#semantic");
    await page.waitForFunction(() => document.querySelector("#mode").value === "hybrid" &&
      !document.querySelector("#semantic").disabled, null, { timeout: TIMEOUT });
    const onMs = Date.now() - started;
    const semBytes = Object.entries(page.bytes ?? {}).filter(([p]) => p.startsWith("/semantic/"));
    console.log(`INFO semantic search on in ${onMs} ms (${semBytes.map(([p, b]) => `${p} ${b} B`).join(", ")})`);
    check(await page.isChecked("#semantic") && requested.includes("/semantic/model.onnx"),
      "turning semantic search on fetches the model and switches the page to hybrid");
    await page.waitForFunction(() => document.querySelector("#search-meta").dataset.query === "how do I report a leak" &&
      document.querySelector("#search-meta").dataset.stage !== undefined);
    const want = cpython(CPY_SEMANTIC, semSite, JSON.stringify(SEMANTIC_QUERIES));
    let worstVector = 0;
    let worstScore = 0;
    for (const q of SEMANTIC_QUERIES) {
      const vector = await page.evaluate((x) => window.groundkit.embed(x), q);
      const diff = Math.max(...vector.map((v, i) => Math.abs(v - want[q].vector[i])));
      worstVector = Math.max(worstVector, diff);
      for (const mode of ["hybrid", "dense"]) {
        const answer = await page.evaluate(([x, m]) => window.groundkit.search(x, m, 10), [q, mode]);
        const got = answer.results;
        const ids = got.map((r) => r.chunk_id);
        const floor = [answer.floor?.source, answer.floor?.min_similarity, answer.abstained];
        check(JSON.stringify(floor) === JSON.stringify(want[q].floor[mode]) && floor[0] === "self-calibrated",
          `semantic ${mode} "${q}": the page applies the site's own floor as CPython does (${JSON.stringify(floor)}; adr/0070)`);
        const wantIds = want[q][mode].map(([id]) => id);
        const scoreDiff = Math.max(0, ...got.map((r, i) => Math.abs(r.score - (want[q][mode][i]?.[1] ?? Infinity))));
        worstScore = Math.max(worstScore, scoreDiff);
        check(JSON.stringify(ids) === JSON.stringify(wantIds) && scoreDiff <= SCORE_TOLERANCE,
          `semantic ${mode} "${q}": the page's top ${ids.length} chunk ids equal CPython's, scores within ${SCORE_TOLERANCE} (max diff ${scoreDiff.toExponential(2)})`);
      }
    }
    console.log(`INFO semantic: query vectors page vs native max |diff| ${worstVector.toExponential(2)}, scores max |diff| ${worstScore.toExponential(2)}`);
    const shown = await search(page, "my tap water is brown");
    check(shown.length > 0, `the page shows hybrid results for the typed query (${shown.length})`);
    const v = await showAndVerify(page, 0);
    check(v.verdict.verdict === "verified", "a hybrid result in the page verifies");
    await page.context().close();

    // A model file that is not the one the vectors were built with: refused before it runs.
    const tampered = await openPage(browser, semOrigin, offsite);
    await tampered.route("**/semantic/model.onnx", async (route) => {
      const response = await route.fetch();
      const body = Buffer.from(await response.body());
      body[body.length - 1] ^= 1;
      await route.fulfill({ response, body });
    });
    await tampered.goto(`${semOrigin}/`, { waitUntil: "domcontentloaded" });
    await search(tampered, "how do I report a leak");
    await tampered.click("#semantic");
    await tampered.waitForFunction(() => !document.querySelector("#semantic").checked &&
      !document.querySelector("#semantic").disabled, null, { timeout: TIMEOUT });
    const said = await tampered.textContent("#progress-text");
    check(said.includes("could not start") && await tampered.inputValue("#mode") === "bm25" &&
      tampered.consoleErrors.some((e) => e.includes("do not reproduce this collection's embedding")),
      "a model whose SHA-256 is not the collection's is refused: the switch turns off, keyword search goes on");
    check(!tampered.consoleErrors.some((e) => e.includes("Traceback")),
      "the refusal reaches the console as one line, no Python traceback");
    check((await search(tampered, "boil water notice")).length > 0, "keyword search still answers after the refusal");
    await tampered.context().close();
  } finally {
    s3.srv.kill();
  }
}

let srv, browser;
const measured = {};
try {
  const site = JSON.parse(fs.readFileSync(path.join(SITE, "site.json"), "utf-8"));
  const indexDir = SITE; // CPython reads the site's own index/ (groundkit.site.open_site)
  const name = site.collection.name;
  const s = await startServer(SITE);
  srv = s.srv;
  const origin = `http://127.0.0.1:${s.port}`;
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
    headless: !argv.includes("--headed"),
    args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      "--disable-dev-shm-usage", "--enable-precise-memory-info"],
  });
  const offsite = [];
  const page = await openPage(browser, origin, offsite);
  const cdp = await page.context().newCDPSession(page);
  await cdp.send("Performance.enable");
  const benchQueries = BENCH_ONLY ? JSON.parse(fs.readFileSync(BENCH_ONLY, "utf-8")) : SAMPLE_QUERIES;
  const q1 = BENCH_ONLY ? benchQueries[0] : "how do I report a leak";

  // ---- cold start: the page draws at once, takes a query while Python loads in the worker ----
  const tNav = performance.now();
  await page.goto(`${origin}/`, { waitUntil: "domcontentloaded" });
  await page.waitForSelector("#query:not([disabled])", { timeout: 10_000 });
  const early = await page.evaluate(() => document.body.dataset.state);
  await page.fill("#query", q1);
  await page.press("#query", "Enter");
  const tTyped = performance.now();
  await page.waitForFunction(() => ["ready", "error"].includes(document.body.dataset.state), null, { timeout: TIMEOUT });
  const state = await page.evaluate(() => document.body.dataset.state);
  if (state !== "ready") {
    throw new Error(`the page did not start: ${await page.textContent("#error")}`);
  }
  const tReady = performance.now();
  // The query typed before the index was ready runs by itself once it is.
  await page.waitForFunction((q) => document.querySelector("#search-meta").dataset.query === q, q1, { timeout: TIMEOUT });
  const tFirst = performance.now();
  await page.waitForSelector("#cited", { timeout: 10_000 }).catch(() => {});
  const got1 = await results(page);
  const start = await page.evaluate(() => ({ phases: window.groundkit.phases, longTasks: window.__longTasks }));
  measured.cold_start = {
    navigation_to_ready_ms: Math.round(tReady - tNav),
    navigation_to_first_result_ms: Math.round(tFirst - tNav),
    typed_before_ready_ms: Math.round(tTyped - tNav),
    long_tasks_ms: start.longTasks,
    page: await page.evaluate(() => ({ ...window.groundkit.metrics })),
  };
  console.log(`cold start: ready ${measured.cold_start.navigation_to_ready_ms} ms, first result ` +
    `${measured.cold_start.navigation_to_first_result_ms} ms; in page ${JSON.stringify(measured.cold_start.page)}`);

  if (BENCH_ONLY) {
    measured.first_query_results = got1.length;
    await measure(page, cdp, indexDir, name, benchQueries);
    fs.mkdirSync(OUT, { recursive: true });
    fs.writeFileSync(path.join(OUT, "measure.json"), JSON.stringify(measured, null, 2));
    await page.screenshot({ path: path.join(OUT, "bench.png") });
    check(offsite.length === 0, "no request left 127.0.0.1");
    throw { done: true };
  }

  // ---- the worker start: typing before ready, progress through each phase, no long task ----
  check(early === "loading", `the search box took typing while the page was still loading (state ${early})`);
  const wantPhases = ["site", "runtime", "install", "collection", "ready"];
  check(wantPhases.every((p) => start.phases.includes(p)), `progress went through ${wantPhases} (saw ${start.phases})`);
  // Python runs in the worker: the page itself never loads Pyodide. Long main-thread tasks are
  // reported, not asserted (tests never time anything; bench/site_vs_pagefind.py measures them).
  check(await page.evaluate(() => typeof window.loadPyodide === "undefined" &&
    performance.getEntriesByType("resource").every((e) => !/pyodide|\.whl|\.wasm/.test(e.name))),
    "Pyodide, the wheel and the index load in the worker, never on the page's main thread");
  console.log(`INFO main-thread long tasks during start and the first search: ${JSON.stringify(start.longTasks)} ms`);
  check(await page.evaluate(() => !!document.querySelector('meta[http-equiv="Content-Security-Policy"]')?.content.includes("default-src 'self'")),
    "the page carries a Content-Security-Policy");

  // ---- results match CPython on the same collection file ----
  const want1 = cpython(CPY_SEARCH, indexDir, name, q1);
  check(got1.length > 0, `"${q1}" has results (${got1.length})`);
  check(JSON.stringify(got1.map((r) => [r.source, r.start, r.end])) ===
    JSON.stringify(want1.map((r) => [r.source, r.start, r.end])),
    "the page's ranking (sources, code-point spans) equals CPython's on the same file");
  check(got1.every((r, i) => r.cite === `${want1[i].source}:${want1[i].start_line}–${want1[i].end_line}`),
    "each result shows its source and line span");
  check(got1.every((r, i) => r.score.toFixed(4) === want1[i].score.toFixed(4)), "scores equal CPython's (4 places)");
  check(got1[0]?.source === "customers/report-a-leak.md", `top result is customers/report-a-leak.md (got ${got1[0]?.source})`);
  // ---- the index is fetched lazily: the head, then only the shards a query's terms need ----
  const fetched1 = await page.evaluate(() => window.groundkit.fetched());
  const shards1 = fetched1.filter(([p]) => p.startsWith("index/postings/"));
  check(fetched1[0]?.[0] === "index/collection.bin" && shards1.length > 0 && shards1.length < site.collection.shards,
    `the first query fetched the index head and ${shards1.length} of ${site.collection.shards} postings shards ` +
    `(${fetched1.reduce((n, [, b]) => n + b, 0)} bytes of index and sources; the index is ${site.collection.bytes})`);
  await search(page, "leak report"); // the same terms: nothing more to fetch for postings
  const fetched2 = await page.evaluate(() => window.groundkit.fetched());
  check(fetched2.slice(fetched1.length).every(([p]) => !p.startsWith("index/postings/")),
    "a query whose terms' shards are loaded fetches no postings");
  await search(page, q1);
  const v1 = await showAndVerify(page, 0);
  check(v1.cited.text === want1[0].text, "the highlighted span is exactly the cited text");
  check(v1.verdict.verdict === "verified", `verify says verified (${v1.verdict.verdict}: ${v1.verdict.reason})`);

  // ---- astral characters before the span (💧 🔧 🏠 in the sample notice) ----
  const q2 = "how to prepare";
  const got2 = await search(page, q2);
  const want2 = cpython(CPY_SEARCH, indexDir, name, q2);
  const i2 = got2.findIndex((r) => r.source === "emergencies/planned-interruption-notice.md" && r.start > 0);
  check(i2 >= 0, `"${q2}" finds a passage of planned-interruption-notice.md past its start`);
  const v2 = await showAndVerify(page, i2);
  const source2 = fs.readFileSync(path.join(SITE, "sources", got2[i2].source), "utf-8");
  const astral = astralBefore(source2, got2[i2].start);
  check(astral >= 2, `the source holds ${astral} astral characters before the span`);
  check(Number(v2.cited.utf16Start) === got2[i2].start + astral &&
    Number(v2.cited.utf16End) === got2[i2].end + astral + astralBefore([...source2].slice(got2[i2].start, got2[i2].end).join(""), got2[i2].end - got2[i2].start),
    `UTF-16 span [${v2.cited.utf16Start}:${v2.cited.utf16End}] = code points [${got2[i2].start}:${got2[i2].end}] shifted by the surrogate pairs`);
  check(v2.cited.text === want2[i2].text && v2.cited.matches === "true", "the astral-case highlight is exactly the cited text");
  check(v2.verdict.verdict === "verified", `astral case verifies (${v2.verdict.verdict})`);
  fs.mkdirSync(OUT, { recursive: true });
  await page.screenshot({ path: path.join(OUT, "site.png") });
  console.log(`screenshot: ${path.join(OUT, "site.png")}`);

  // ---- the result list: heading paths as titles, query words marked, count announced ----
  const got4 = await search(page, "boil water notice");
  check(got4.every((r) => r.title.trim().length > 0), `every result has a title (${got4.slice(0, 3).map((r) => r.title).join(" | ")})`);
  check(got4.some((r) => r.title.includes(" › ")), "results are headed by their heading path");
  const marked = got4.flatMap((r) => r.marks.map((m) => m.toLowerCase()));
  check(marked.length > 0 && marked.every((m) => /^(boil|water|notice)/.test(m)),
    `query words are marked in the snippets (${[...new Set(marked)].join(", ")})`);
  check(got4.every((r) => r.marks.length > 0), "every snippet shows a matched word");
  const live = await page.$eval("#search-meta", (m) => [m.getAttribute("aria-live"), m.textContent]);
  check(live[0] === "polite" && /^\d+ pages? for/.test(live[1]), `the result count is announced in a live region ("${live[1]}")`);
  check(await page.$eval("#query", (q) => q.labels.length > 0 && q.labels[0].textContent.trim() !== ""), "the search box is labelled");
  // ---- as a visitor types: a begun last word and a typo find what the whole word does ----
  for (const [typed, word] of [["chlorine resid", "residual"], ["hydrent flushing", "hydrant"]]) {
    const got = await search(page, typed);
    const want = cpython(CPY_SEARCH, indexDir, name, typed);
    check(got.length > 0 && JSON.stringify(got.map((r) => [r.source, r.start, r.end, r.score.toFixed(4)])) ===
      JSON.stringify(want.map((r) => [r.source, r.start, r.end, r.score.toFixed(4)])),
      `"${typed}" finds ${got.length} passages, ranked and scored as CPython's`);
    const marks = got.flatMap((r) => r.marks.map((m) => m.toLowerCase()));
    check(marks.some((m) => m.startsWith(word)), `"${typed}" marks the word it stands for (${word})`);
  }

  // ---- links to rendered pages (--base-url /handbook/ --url-rule mkdocs) and the JS API ----
  const qLink = "how do I report a leak";
  const gotLinks = await search(page, qLink);
  const wantLinks = cpython(CPY_LINKS, indexDir, qLink, "3");
  const abs = (u) => (u === null ? null : new URL(u, origin + "/").href);
  check(gotLinks.length > 0 && gotLinks.every((r, i) => r.href !== null && r.href === abs(wantLinks[i].url)),
    `every result's title links to its page and heading as links.json names them (${gotLinks.slice(0, 2).map((r) => r.href).join(", ")})`);
  const ways = gotLinks.findIndex((r) => r.title.endsWith("Ways to report a leak"));
  check(ways >= 0 && gotLinks[ways].href === `${origin}/handbook/customers/report-a-leak/#ways-to-report-a-leak`,
    `the "Ways to report a leak" passage links to /handbook/customers/report-a-leak/#ways-to-report-a-leak (${gotLinks[ways]?.href})`);
  check(await page.$$eval("#results .title a", (as) => as.every((a) => !a.target)), "the links open in the same tab (no target)");
  await page.screenshot({ path: path.join(OUT, "site-links.png") });
  const api = await page.evaluate((q) => window.groundkit.search(q, { group: 3 }), qLink);
  check(api.mode === "bm25" && api.query === qLink && api.results.length === wantLinks.length,
    `window.groundkit.search uses the page's mode (${api.mode}) and returns ${api.results.length} results`);
  check(api.results.every((r, i) => r.source === wantLinks[i].source && r.start_offset === wantLinks[i].start &&
    r.end_offset === wantLinks[i].end && r.text === wantLinks[i].text && abs(r.url) === abs(wantLinks[i].url) &&
    r.title === gotLinks[i].title && typeof r.snippet === "string" && r.snippet.length > 0 && typeof r.score === "number"),
    "the API's results are plain objects: source, offsets and cited text as CPython's, url and title as the page shows");
  // embed.html: app.js on a page of its own draws nothing and answers through the API
  const host = await openPage(browser, origin, offsite);
  await host.goto(`${origin}/embed.html`);
  await host.evaluate(() => window.groundkit.ready);
  await host.fill("#demo-query", qLink);
  await host.click("#demo button");
  await host.waitForFunction(() => document.querySelector("#demo").dataset.done !== undefined, null, { timeout: TIMEOUT });
  const hosted = await host.evaluate(() => ({ title: document.title, state: document.body.dataset.state,
    hrefs: [...document.querySelectorAll("#demo-results a")].map((a) => a.href) }));
  check(hosted.title === "Embedding this search" && hosted.state === undefined,
    `embed.html: app.js leaves the host page's title and body alone (${hosted.title}, ${hosted.state})`);
  const wantPlain = cpython(CPY_LINKS, indexDir, qLink, "0"); // the API's default: passages
  check(hosted.hrefs.length === wantPlain.length && hosted.hrefs.every((h, i) => h === abs(wantPlain[i].url)),
    `embed.html: a page's own UI lists the results with their links (${hosted.hrefs.length})`);
  check(host.consoleErrors.length === 0, `embed.html: no console error (${host.consoleErrors.join("; ")})`);
  await host.screenshot({ path: path.join(OUT, "site-embed.png") });
  await host.context().close();

  await page.fill("#query", "");
  await page.click("#search-button");
  const empty = await page.textContent("#search-meta");
  check(/type a few words/i.test(empty), `an empty query says so ("${empty}")`);
  // "nothing here": an off-topic question abstains by the site's own calibrated bar (ADR 0069)
  const offTopic = await search(page, "what is the best way to clean a tap");
  const said = await page.evaluate(() => ({ meta: document.querySelector("#search-meta").textContent,
    abstained: document.querySelector("#search-meta").dataset.abstained,
    message: document.querySelector("#results .message")?.textContent ?? "" }));
  check(offTopic.length === 0 && said.abstained === "yes" && /nothing here/i.test(said.meta) &&
    /don't seem to answer/.test(said.message), `an off-topic question says "nothing here" in words ("${said.meta}": "${said.message}")`);
  // a question naming a thing the site never mentions says which (ADR 0080)
  const named = await search(page, "how do I pay my bill with PayPal");
  const told = await page.evaluate(() => document.querySelector("#results .message")?.textContent ?? "");
  check(named.length === 0 && /never mention “PayPal”/.test(told), `a question naming what the site never mentions says so ("${told}")`);
  check(await noHorizontalScroll(page), "desktop: no horizontal scroll");
  await page.emulateMedia({ colorScheme: "dark" });
  await search(page, "boil water notice");
  const dark = await page.evaluate(() => {
    const rgb = getComputedStyle(document.body).backgroundColor.match(/\d+/g).map(Number);
    return (0.2126 * rgb[0] + 0.7152 * rgb[1] + 0.0722 * rgb[2]) / 255;
  });
  check(dark < 0.2, `prefers-color-scheme: dark gives a dark page (background luminance ${dark.toFixed(2)})`);
  await page.screenshot({ path: path.join(OUT, "site-dark.png") });
  await page.emulateMedia({ colorScheme: "light" });

  // ---- a 390 px phone: no horizontal scroll, the citation viewer reachable ----
  const phone = await openPage(browser, origin, offsite, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });
  await phone.goto(`${origin}/`);
  await phone.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: TIMEOUT });
  const gotPhone = await search(phone, "how to prepare");
  check(gotPhone.length > 1, `phone: results (${gotPhone.length})`);
  check(await noHorizontalScroll(phone), `phone: no horizontal scroll (scrollWidth ${await phone.evaluate(() => document.documentElement.scrollWidth)})`);
  const verifyBox = await phone.$eval('#results .result[data-index="0"] .verify', (b) => b.getBoundingClientRect().right);
  check(verifyBox <= 390, `phone: Verify lies on screen (right edge ${Math.round(verifyBox)} px)`);
  await phone.screenshot({ path: path.join(OUT, "site-phone.png") });
  await phone.click('#results .result[data-index="1"] .cite');
  await phone.waitForFunction(() => document.querySelector("#viewer").dataset.index === "1" &&
    document.querySelector("#viewer").getBoundingClientRect().top < window.innerHeight &&
    document.querySelector("#viewer").getBoundingClientRect().top >= -1);
  check(true, "phone: a citation opens the viewer in view");
  check(await noHorizontalScroll(phone), "phone: no horizontal scroll with the viewer open");
  await phone.screenshot({ path: path.join(OUT, "site-phone-viewer.png") });
  const phoneLong = await phone.evaluate(() => window.__longTasks);
  console.log(`INFO phone: main-thread long tasks ${JSON.stringify(phoneLong)} ms`);
  await phone.context().close();

  // ---- dense and hybrid in the page (the site carries hash-embedder vectors) ----
  const modes = await page.$$eval("#mode option", (os) => os.map((o) => o.value));
  check(modes.join() === "bm25,dense,hybrid", `the page offers bm25, dense and hybrid (${modes})`);
  for (const [mode, stage, q] of [["hybrid", "fusion", "who fixes a burst main"], ["dense", "dense", "pressure zone alarm"]]) {
    await page.selectOption("#mode", mode);
    const got = await search(page, q);
    const want = cpython(CPY_SEARCH, indexDir, name, q, mode);
    const shown = await page.$eval("#search-meta", (m) => m.dataset.stage);
    check(shown === stage, `${mode} search is labelled ${stage} in the page (got ${shown})`);
    check(got.length > 0 && JSON.stringify(got.map((r) => [r.source, r.start, r.end, r.score.toFixed(4)])) ===
      JSON.stringify(want.map((r) => [r.source, r.start, r.end, r.score.toFixed(4)])),
      `${mode}: the page's ranking and scores equal CPython's (${got.length} results)`);
    const v = await showAndVerify(page, 0);
    check(v.cited.text === want[0].text && v.verdict.verdict === "verified", `${mode}: the top result highlights its cited text and verifies`);
    const apiMode = await page.evaluate((x) => window.groundkit.search(x, { group: 3 }), q);
    check(apiMode.mode === mode && JSON.stringify(apiMode.results.map((r) => [r.source, r.start_offset, r.end_offset])) ===
      JSON.stringify(want.map((r) => [r.source, r.start, r.end])),
      `${mode}: window.groundkit.search follows the page's mode (${apiMode.mode})`);
  }
  await page.screenshot({ path: path.join(OUT, "site-hybrid.png") });
  await page.selectOption("#mode", "bm25");

  if (MEASURE) await measure(page, cdp, indexDir, name, SAMPLE_QUERIES);

  // ---- dropped files, indexed in the page, with astral characters ----
  const dropped = [
    { name: "notes/astral.md", text: "# 😀 Emoji 🦘 notes\n\nIntro 𝔘𝔫𝔦𝔠𝔬𝔡𝔢 line.\n\n## 🐨 Marsupials\n\nThe quokka 🦘 and the numbat live in 𠀀 western places.\n" },
    { name: "notes/plain.txt", text: "A plain file about wombats.\r\nSecond line.\r\n" },
  ];
  await page.click("#drop-panel summary");
  await page.setInputFiles("#file-input", dropped.map((f) => ({ name: f.name.split("/").pop(), mimeType: "text/plain", buffer: Buffer.from(f.text, "utf-8") })));
  await page.waitForFunction(() => document.querySelector("#collection-info").textContent.includes("your dropped files"), null, { timeout: 30_000 });
  const info = await page.textContent("#collection-info");
  check(/2 documents/.test(info), `dropped files indexed in the page (${info})`);
  const got3 = await search(page, "quokka numbat");
  check(got3[0]?.source === "astral.md", `dropped-file search finds astral.md (got ${got3[0]?.source})`);
  const v3 = await showAndVerify(page, 0);
  const text3 = dropped[0].text;
  const [s3, e3] = [got3[0].start, got3[0].end];
  const expected3 = [...text3].slice(s3, e3).join("");
  check(v3.cited.text === expected3 && expected3.includes("quokka 🦘"), `dropped astral highlight is code points [${s3}:${e3}] of the file`);
  check(v3.verdict.verdict === "verified", `dropped file verifies (${v3.verdict.verdict}: ${v3.verdict.reason})`);
  await page.screenshot({ path: path.join(OUT, "site-dropped.png") });
  if (MEASURE) measured.memory_after_drop = await memory(page, cdp);

  // ---- a clear message when the runtime cannot load; the owner's fix in the console ----
  const bad = await openPage(browser, origin, offsite);
  await bad.goto(`${origin}/?pyodide=/no-such-pyodide/`);
  await bad.waitForFunction(() => document.body.dataset.state === "error", null, { timeout: 30_000 });
  const message = await bad.textContent("#error");
  check(/unavailable/.test(message) && !/pyodide/i.test(message),
    `a missing runtime gives the visitor a plain message ("${message.trim()}")`);
  await new Promise((ok) => setTimeout(ok, 500)); // a download still under way says nothing
  const status = await bad.textContent("#progress-text");
  check(status.trim() === "", `and no stale status line stays ("${status.trim()}")`);
  check(bad.consoleErrors.some((m) => /no-such-pyodide/.test(m) && /--pyodide-dir/.test(m)),
    "and the site owner's fix goes to the console");
  await bad.context().close();

  // ---- cross-origin ?pyodide= / ?site= are refused, nothing is fetched from there ----
  const foreign = `http://localhost:${s.port}`; // another origin (host differs), same server
  for (const q of [`?pyodide=${foreign}/pyodide/`, `?site=${foreign}/site.json`, "?pyodide=//evil.invalid/x/",
    `?site=${encodeURIComponent(foreign + "/site.json")}`]) {
    const tried = [];
    const evil = await openPage(browser, origin, tried);
    await evil.goto(`${origin}/${q}`);
    await evil.waitForFunction(() => document.body.dataset.state === "error", null, { timeout: 30_000 });
    const reason = await evil.$eval("#error", (e) => e.dataset.reason);
    check(reason === "refused" && tried.length === 0,
      `${q} is refused without a request to it (${reason}; off-site requests: ${tried.join(", ") || "none"})`);
    await evil.context().close();
  }
  // The page's own policy stops a script from fetching elsewhere too.
  const blocked = await page.evaluate(async (u) => {
    try { await fetch(u); return "fetched"; } catch { /* refused: the violation event follows */ }
    await new Promise((ok) => setTimeout(ok, 200));
    return window.__cspViolations.join(",");
  }, `${foreign}/site.json`);
  check(blocked.includes("localhost"), `the Content-Security-Policy blocks a cross-origin fetch (${blocked})`);
  await page.evaluate(() => (window.__longTasks = []));

  // ---- a site built with --snapshot: Python restored from the memory snapshot, same answers ----
  if (SNAPSHOT_SITE) {
    const snapSite = path.resolve(SNAPSHOT_SITE);
    const s2 = await startServer(snapSite);
    const snapOrigin = `http://127.0.0.1:${s2.port}`;
    try {
      const snap = await openPage(browser, snapOrigin, offsite);
      const requested = [];
      const runtimeAt = []; // when the page first asked for Python's runtime
      snap.on("request", (r) => {
        const p = new URL(r.url()).pathname;
        requested.push(p);
        if (p.startsWith("/pyodide/") && !runtimeAt.length) runtimeAt.push(performance.now());
      });
      await snap.goto(`${snapOrigin}/`, { waitUntil: "domcontentloaded" });
      await snap.fill("#query", q1);
      await snap.press("#query", "Enter");
      await snap.waitForFunction((q) => document.querySelector("#search-meta").dataset.query === q, q1, { timeout: TIMEOUT });
      const firstAt = performance.now();
      const gotSnap = await results(snap);
      const wantSnap = cpython(CPY_SEARCH, snapSite, "default", q1);
      // ADR 0062: a lexical collection's page answers from its JS path; Python is requested
      // only after the first results are painted, then holds every JS answer to its own.
      check(!runtimeAt.length || runtimeAt[0] > firstAt,
        `the first answer came before Python's runtime was requested (${requested.filter((x) => x.startsWith("/pyodide/")).join(", ") || "none yet"})`);
      await snap.evaluate(() => window.groundkit.python());
      await snap.waitForFunction(() => window.groundkit.firstAnswer.checked >= 1, null, { timeout: TIMEOUT });
      const held = await snap.evaluate(() => window.groundkit.firstAnswer);
      check(held.answered >= 1 && held.mismatches.length === 0,
        `the core's answer equals the page's first answer (${held.checked} checked, mismatches ${JSON.stringify(held.mismatches)})`);
      check(requested.includes("/pyodide/snapshot.bin.gz"), "the --snapshot site restores Python from pyodide/snapshot.bin.gz");
      const once = ["/pyodide/snapshot.bin.gz", "/pyodide/pyodide.asm.wasm"].map((p) => requested.filter((x) => x === p).length);
      check(once.join() === "1,1", `the --snapshot page fetches the snapshot and the wasm once (requests ${once})`);
      check(gotSnap.length > 0 && JSON.stringify(gotSnap.map((r) => [r.source, r.start, r.end, r.score.toFixed(4)])) ===
        JSON.stringify(wantSnap.map((r) => [r.source, r.start, r.end, r.score.toFixed(4)])),
        `the --snapshot site answers as CPython does (${gotSnap.length} results)`);
      const vs = await showAndVerify(snap, 0);
      check(vs.cited.text === wantSnap[0].text && vs.verdict.verdict === "verified", "the --snapshot site highlights and verifies");
      // The engine's files download after the first result; the visitor's status line stays
      // "Ready." (it used to end on "Downloading the search engine: 250 KiB").
      const snapStatus = await snap.evaluate(() => [document.body.dataset.state, document.querySelector("#progress-text").textContent]);
      check(snapStatus[0] === "ready" && !/Downloading|KiB/.test(snapStatus[1]),
        `the --snapshot site's status line ends ready after results and Verify ("${snapStatus[1]}")`);
      // Files dropped on the restored page index with the trimmed standard library (ADR 0033):
      // an HTML file takes the extractor's imports (html.parser), which the snapshot lacks.
      await snap.click("#drop-panel summary");
      await snap.setInputFiles("#file-input", [
        { name: "page.html", mimeType: "text/html", buffer: Buffer.from("<html><head><title>Wombats</title></head><body><h1>Wombats</h1><p>The wombat digs burrows &amp; tunnels.</p></body></html>", "utf-8") },
        { name: "plain.md", mimeType: "text/plain", buffer: Buffer.from("# Numbats\n\nThe numbat eats termites.\n", "utf-8") },
      ]);
      await snap.waitForFunction(() => /your dropped files|could not/.test(document.querySelector("#collection-info").textContent), null, { timeout: 30_000 });
      const snapInfo = await snap.textContent("#collection-info");
      check(/2 documents/.test(snapInfo), `the --snapshot site indexes dropped HTML and Markdown files (${snapInfo})`);
      const gotDrop = await search(snap, "wombat burrows");
      const vd = gotDrop[0] ? await showAndVerify(snap, 0) : null;
      check(gotDrop[0]?.source === "page.html" && vd?.verdict.verdict === "verified",
        `the --snapshot site finds and verifies the dropped HTML file (got ${gotDrop[0]?.source}: ${vd?.verdict.verdict})`);
      check(!snap.consoleErrors.some((m) => /ModuleNotFoundError|No module named|the snapshot lacks/.test(m)),
        "no module is missing from the --snapshot site's trimmed standard library");
      const snapLong = await snap.evaluate(() => window.__longTasks);
      console.log(`INFO the --snapshot site: main-thread long tasks ${JSON.stringify(snapLong)} ms`);
      await snap.context().close();
    } finally {
      s2.srv.kill();
    }
  }

  if (SEMANTIC_SITE) await checkSemantic(browser, path.resolve(SEMANTIC_SITE), offsite);
  if (ODD_SITE) await checkOddNames(browser, path.resolve(ODD_SITE), offsite);
  if (DJANGO_SITE) await checkDjango(browser, path.resolve(DJANGO_SITE), offsite);
  if (LANGUAGE_SITE) await checkLanguages(browser, path.resolve(LANGUAGE_SITE), offsite);

  check(offsite.length === 0, `no request left 127.0.0.1${offsite.length ? ": " + offsite.join(", ") : ""}`);
  console.log(`browser: chromium ${browser.version()}`);
  if (MEASURE) {
    fs.writeFileSync(path.join(OUT, "measure.json"), JSON.stringify(measured, null, 2));
    console.log(`measurements: ${path.join(OUT, "measure.json")}`);
  }
} catch (e) {
  if (!e?.done) {
    console.error(`site-test: error: ${e?.stack ?? e}`);
    process.exitCode = 99;
  }
} finally {
  await browser?.close().catch(() => {});
  srv?.kill();
}
if (process.exitCode !== 99) process.exitCode = failed ? 1 : 0;
