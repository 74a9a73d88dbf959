#!/usr/bin/env node
// One cold run of one search page in Debian's headless chromium, for bench/site_vs_pagefind.py.
//   node web/bench/drive.mjs --url URL --kind groundkit|pagefind --queries JSON [--repeats N] [--shot PNG]
//     [--repeat-visit]   then a second visit in the same browser (its HTTP cache warm), timed the
//                        same way, with the bytes the server sent for it (its /__bytes counter)
// A fresh browser process (so a cold HTTP cache and a cold renderer) loads URL, types the first
// query at once, and waits for its results on screen; then times the warm queries through the
// page's own search call. Every request must stay on the page's origin (others fail and are
// reported). Prints one JSON object: times (ms), bytes before the first result (the bodies as
// sent), long tasks, renderer memory.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { chromium } from "playwright-core";

const argv = process.argv.slice(2);
const opt = (name, fallback) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : fallback);
const URL_ = opt("--url");
const KIND = opt("--kind");
const QUERIES = JSON.parse(opt("--queries"));
const REPEATS = Number(opt("--repeats", "3"));
const SHOT = opt("--shot", null);
const REPEAT_VISIT = argv.includes("--repeat-visit");
const TIMEOUT = 300_000;

// Renderer processes started by this node process's chromium (its descendants).
function rendererRssMB() {
  const parent = new Map();
  const cmd = new Map();
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf-8");
      parent.set(Number(pid), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
      cmd.set(Number(pid), fs.readFileSync(`/proc/${pid}/cmdline`, "utf-8"));
    } catch { /* gone */ }
  }
  const mine = (pid) => { for (let p = pid; p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true; return false; };
  let kb = 0;
  for (const [pid, c] of cmd) {
    if (!c.includes("--type=renderer") || !mine(pid)) continue;
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, "utf-8"));
      if (m) kb += Number(m[1]);
    } catch { /* gone */ }
  }
  return Math.round(kb / 102.4) / 10;
}

// CPU seconds (user + system) of every process this node process's chromium started.
function browserCpuSeconds() {
  const parent = new Map();
  const ticks = new Map();
  for (const pid of fs.readdirSync("/proc").filter((d) => /^\d+$/.test(d))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf-8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      parent.set(Number(pid), Number(fields[1]));
      ticks.set(Number(pid), Number(fields[11]) + Number(fields[12]));
    } catch { /* gone */ }
  }
  const mine = (pid) => { for (let p = parent.get(pid); p > 1; p = parent.get(p) ?? 0) if (p === process.pid) return true; return false; };
  let total = 0;
  for (const [pid, t] of ticks) if (mine(pid)) total += t;
  return total / 100; // USER_HZ
}

const origin = new URL(URL_).origin;
// A fresh profile folder: an empty disk cache, as a first-time visitor's browser has (an
// incognito context keeps a small memory cache that never holds the Python runtime).
const profile = fs.mkdtempSync(path.join(os.tmpdir(), "drive-profile-"));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  args: ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"],
  viewport: { width: 1280, height: 900 },
});
const out = { kind: KIND };
try {
  // Off-origin requests are recorded here and fail at DNS (--host-resolver-rules below):
  // routing them instead would turn chromium's HTTP cache off, which the repeat visit measures.
  const offsite = [];
  context.on("request", (request) => {
    const u = request.url();
    if (!u.startsWith(origin + "/") && !u.startsWith("data:") && !u.startsWith("blob:")) offsite.push(u);
  });
  const finished = []; // [time, url, body bytes]
  context.on("requestfinished", async (request) => {
    const at = performance.now();
    const sizes = await request.sizes().catch(() => null);
    finished.push([at, request.url(), sizes ? sizes.responseBodySize : 0]);
  });
  await context.addInitScript(() => {
    window.__longTasks = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) window.__longTasks.push(Math.round(e.duration));
    }).observe({ type: "longtask", buffered: true });
  });
  const q = QUERIES[0];
  // Open the page, type the first query as soon as the box takes it, wait for its results.
  const visit = async (page) => {
    const t0 = performance.now();
    await page.goto(URL_, { waitUntil: "domcontentloaded" });
    await page.waitForSelector(KIND === "groundkit" ? "#query:not([disabled])" : "#q");
    const tInput = performance.now();
    if (KIND === "groundkit") {
      await page.fill("#query", q);
      await page.press("#query", "Enter");
      await page.waitForFunction((x) => document.querySelector("#search-meta").dataset.query === x &&
        document.querySelectorAll("#results .result").length > 0, q, { timeout: TIMEOUT });
    } else {
      await page.fill("#q", q);
      await page.waitForFunction((x) => document.querySelector("#results").dataset.query === x &&
        document.querySelectorAll("#results li").length > 0, q, { timeout: TIMEOUT });
    }
    return [t0, tInput, performance.now()];
  };
  const sentSoFar = async () => (await (await fetch(`${origin}/__bytes`)).json()).bytes;
  const page = context.pages()[0] ?? await context.newPage();
  page.on("pageerror", (e) => console.error(`[pageerror] ${e}`));
  const cpu0 = browserCpuSeconds();
  const [t0, tInput, tFirst] = await visit(page);
  out.browser_cpu_s_to_first_result = Math.round((browserCpuSeconds() - cpu0) * 100) / 100;
  await new Promise((ok) => setTimeout(ok, 300)); // let late requestfinished events land
  const before = finished.filter(([at]) => at <= tFirst);
  out.navigation_to_input_ms = Math.round(tInput - t0);
  out.navigation_to_first_result_ms = Math.round(tFirst - t0);
  out.requests_before_first_result = before.length;
  out.bytes_before_first_result = before.reduce((n, [, , b]) => n + b, 0);
  out.urls_before_first_result = before.map(([, u, b]) => [u.slice(origin.length), b]);
  out.first_results = await page.evaluate((kind) => kind === "groundkit"
    ? [...document.querySelectorAll("#results > li.page")].map((li) => li.dataset.source) // its pages
    : [...document.querySelectorAll("#results li")].map((li) => li.dataset.url), KIND);
  // As a visitor types: every prefix of each query (and of a typo of it), one search a key,
  // each timed from the call to its results (debounce and drawing excluded).
  out.keystrokes = await page.evaluate(async ([kind, queries]) => {
    const run = kind === "groundkit"
      ? (x) => window.groundkit.search(x, { group: 3 }) // 10 pages, as the page lists them
      : async (x) => { const r = await window.pagefind.search(x); return Promise.all(r.results.slice(0, 10).map((y) => y.data())); };
    const typo = (q) => q.replace(/([a-z])([a-z])([a-z]{3,})/, "$1$3"); // one letter dropped
    const times = [];
    for (const q of queries.slice(1).flatMap((x) => [x, typo(x)])) {
      for (let n = 1; n <= q.length; n++) {
        if (!q.slice(0, n).trim()) continue;
        const t = performance.now();
        await run(q.slice(0, n));
        times.push(performance.now() - t);
      }
    }
    times.sort((a, b) => a - b);
    return { n: times.length, median_ms: times[times.length >> 1], p99_ms: times[Math.floor(times.length * 0.99)], max_ms: times.at(-1) };
  }, [KIND, QUERIES]);
  // Warm queries: every query once (fetching what it needs), then timed REPEATS times each.
  out.warm = await page.evaluate(async ([kind, queries, repeats]) => {
    const run = kind === "groundkit"
      ? (x) => window.groundkit.search(x, { group: 3 }) // 10 pages, as the page lists them
      : async (x) => { const r = await window.pagefind.search(x); return Promise.all(r.results.slice(0, 10).map((y) => y.data())); };
    for (const x of queries) await run(x);
    const times = [];
    for (let i = 0; i < repeats; i++) {
      for (const x of queries) { const t = performance.now(); await run(x); times.push(performance.now() - t); }
    }
    times.sort((a, b) => a - b);
    return { n: times.length, median_ms: times[times.length >> 1], p95_ms: times[Math.floor(times.length * 0.95)] };
  }, [KIND, QUERIES, REPEATS]);
  out.long_tasks_ms = await page.evaluate(() => window.__longTasks);
  if (KIND === "groundkit") out.page_metrics = await page.evaluate(() => ({ ...window.groundkit.metrics }));
  out.renderer_rss_mb = rendererRssMB();
  out.bytes_total = finished.reduce((n, [, , b]) => n + b, 0);
  out.offsite = offsite;
  if (SHOT) await page.screenshot({ path: SHOT });
  if (REPEAT_VISIT) { // the visitor comes back: same browser, its HTTP cache as it was left
    await page.close();
    const before = await sentSoFar();
    const again = await context.newPage();
    const [r0, , rFirst] = await visit(again);
    await new Promise((ok) => setTimeout(ok, 300));
    out.repeat_visit = { navigation_to_first_result_ms: Math.round(rFirst - r0),
      bytes_sent: (await sentSoFar()) - before };
  }
} finally {
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
}
console.log(JSON.stringify(out));
