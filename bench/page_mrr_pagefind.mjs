// bench/page_mrr.py's peer: Pagefind's own runtime (pagefind.js, WASM) over an index built by
// `pagefind --site HTML` from Django's Sphinx HTML, run in Node (file: fetches read from disk).
// Usage: node page_mrr_pagefind.mjs JUDGED.jsonl HTML_DIR OUTPUT.json
// OUTPUT: {query: [docs page path (topics/auth/default.txt), ... top 10]}
import { readFileSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";

const [judged, html, output] = process.argv.slice(2);
const queries = readFileSync(judged, "utf-8").trim().split("\n").map((l) => JSON.parse(l).query);
const webFetch = globalThis.fetch;
globalThis.fetch = async (url, options) => {
  const address = new URL(url);
  if (address.protocol !== "file:") return webFetch(url, options);
  return new Response(readFileSync(fileURLToPath(address)));
};
const base = pathToFileURL(html + "/pagefind/").href;
const runtime = await import(base + "pagefind.js");
await runtime.options({ basePath: base });
await runtime.init();
// Pagefind's urls start at the site's root: "/topics/auth/default.html" (or with the
// folder's name first, when the site was given as a path): keep what follows it.
const folder = html.replace(/\/+$/, "").split("/").pop() + "/";
const out = {};
for (const q of queries) {
  const answer = await runtime.search(q);
  const pages = await Promise.all(answer.results.slice(0, 10).map((r) => r.data()));
  out[q] = pages.map((p) => {
    let url = p.url.split("#")[0];
    const at = url.indexOf(folder);
    url = (at >= 0 ? url.slice(at + folder.length) : url).replace(/^\/+/, "");
    return url.replace(/\.html$/, ".txt").replace(/(^|\/)$/, "$1index.txt");
  });
}
writeFileSync(output, JSON.stringify(out, null, 1));
