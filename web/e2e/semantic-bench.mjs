#!/usr/bin/env node
// A measurement, not a test (ADR 0035): semantic search in the page against CPython on a BEIR
// corpus. Writes the first --docs documents as text files, builds a site with
// `--embedder minilm --ort-dir`, turns semantic search on in Debian's headless chromium (served
// on 127.0.0.1, offline) and, for each query, compares the page's query vector and its hybrid
// and dense top 10 with CPython's (groundkit.site.open_site: the native minilm). Prints JSON.
//
//   cd web/e2e && npm ci
//   node semantic-bench.mjs --corpus CORPUS.jsonl[.gz] --queries QUERIES.jsonl [--docs 500]
//     [--limit 300] [--python PY] [--work DIR] [--out FILE]
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import zlib from "node:zlib";
import { chromium } from "playwright-core";

const HERE = path.dirname(fileURLToPath(import.meta.url));
const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const PYTHON = opt("--python", process.env.PYTHON || "python3");
const DOCS = Number(opt("--docs", "500"));
const LIMIT = Number(opt("--limit", "300"));
const WORK = path.resolve(opt("--work", path.join(os.tmpdir(), "gk-semantic-bench")));
const TIMEOUT = 300_000;

const jsonl = (file) => {
  let raw = fs.readFileSync(file);
  if (file.endsWith(".gz")) raw = zlib.gunzipSync(raw);
  return raw.toString("utf-8").split("\n").filter(Boolean).map((l) => JSON.parse(l));
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

function run(cmd, args) {
  const r = spawnSync(cmd, args, { encoding: "utf-8", maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr}`);
  return r.stdout;
}

const CPY = `
import json, sys, time, groundkit.site
out = {}
with groundkit.site.open_site(sys.argv[1]) as r:
    r.embedder.embed_query("warm up")
    for q in json.loads(open(sys.argv[2]).read()):
        t = time.perf_counter(); v = r.embedder.embed_query(q); ms = (time.perf_counter() - t) * 1000
        out[q] = {"vector": v, "ms": ms, **{m: [[x.chunk_id, x.score] for x in
            r.search(q, top_k=10, mode=m).results] for m in ("hybrid", "dense")}}
print(json.dumps(out))`;

const corpus = jsonl(opt("--corpus")).slice(0, DOCS);
const queries = [...new Set(jsonl(opt("--queries")).map((q) => q.text))].slice(0, LIMIT);
fs.rmSync(WORK, { recursive: true, force: true });
fs.mkdirSync(path.join(WORK, "corpus"), { recursive: true });
for (const d of corpus) {
  fs.writeFileSync(path.join(WORK, "corpus", `${d._id}.txt`), `${d.title ?? ""}\n\n${d.text}\n`);
}
const site = path.join(WORK, "site");
let t = Date.now();
run(PYTHON, ["-m", "groundkit", "build-site", path.join(WORK, "corpus"), "-o", site,
  "--pyodide-dir", path.join(HERE, "node_modules/pyodide"), "--embedder", "minilm",
  "--ort-dir", path.join(HERE, "node_modules/onnxruntime-web")]);
const buildS = (Date.now() - t) / 1000;
fs.writeFileSync(path.join(WORK, "queries.json"), JSON.stringify(queries));
const want = JSON.parse(run(PYTHON, ["-c", CPY, site, path.join(WORK, "queries.json")]));

const srv = spawn(PYTHON, ["-u", "-m", "http.server", "0", "--bind", "127.0.0.1", "--directory", site],
  { stdio: ["ignore", "pipe", "ignore"] });
const port = await new Promise((resolve) => srv.stdout.on("data", (d) => {
  const m = /port (\d+)/.exec(String(d));
  if (m) resolve(Number(m[1]));
}));
const origin = `http://127.0.0.1:${port}`;
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage"] });
try {
  const context = await browser.newContext();
  await context.route("**/*", (r) => (r.request().url().startsWith(origin + "/") ? r.continue() : r.abort()));
  const page = await context.newPage();
  await page.goto(`${origin}/`);
  await page.waitForFunction(() => document.body.dataset.state === "ready", null, { timeout: TIMEOUT });
  t = Date.now();
  await page.check("#semantic");
  await page.waitForFunction(() => document.querySelector("#mode").value === "hybrid" &&
    !document.querySelector("#semantic").disabled, null, { timeout: TIMEOUT });
  const semanticOnMs = Date.now() - t;
  const report = { queries: queries.length, hybrid_equal: 0, dense_equal: 0, differ: [] };
  let vec = 0;
  let score = 0;
  const pageMs = [];
  for (const q of queries) {
    const got = await page.evaluate(async (x) => {
      const t0 = performance.now();
      const vector = await window.groundkit.embed(x);
      const ms = performance.now() - t0;
      const hybrid = (await window.groundkit.search(x, "hybrid", 10)).results;
      const dense = (await window.groundkit.search(x, "dense", 10)).results;
      return { vector, ms, hybrid: hybrid.map((r) => [r.chunk_id, r.score]), dense: dense.map((r) => [r.chunk_id, r.score]) };
    }, q);
    pageMs.push(got.ms);
    vec = Math.max(vec, ...got.vector.map((v, i) => Math.abs(v - want[q].vector[i])));
    for (const m of ["hybrid", "dense"]) {
      const same = JSON.stringify(got[m].map(([id]) => id)) === JSON.stringify(want[q][m].map(([id]) => id));
      if (same) {
        report[`${m}_equal`]++;
        score = Math.max(score, ...got[m].map(([, s], i) => Math.abs(s - want[q][m][i][1])), 0);
      } else {
        report.differ.push({ query: q, mode: m, page: got[m], cpython: want[q][m] });
      }
    }
  }
  Object.assign(report, {
    documents: corpus.length, build_s: buildS, semantic_on_ms: semanticOnMs,
    max_vector_diff: vec, max_score_diff_when_equal: score,
    embed_median_ms: { page: median(pageMs), cpython: median(queries.map((q) => want[q].ms)) },
    vectors_bytes: fs.statSync(path.join(site, "index/vectors.bin")).size,
    chunks: JSON.parse(fs.readFileSync(path.join(site, "site.json"), "utf-8")).collection.chunks,
    load_average: os.loadavg().map((x) => Math.round(x * 100) / 100), chromium: browser.version(),
  });
  const text = JSON.stringify(report, null, 2);
  if (opt("--out", null)) fs.writeFileSync(opt("--out"), text + "\n");
  console.log(text);
} finally {
  await browser.close();
  srv.kill();
}
