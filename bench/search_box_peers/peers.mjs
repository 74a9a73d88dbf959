// bench/search_box.py's peers: MiniSearch 7.2, Orama 3.1 and Pagefind 1.6 over the same documents.
// Usage: node peers.mjs INPUT.json OUTPUT.json PAGEFIND_DIR
// INPUT: {"docs": [{"id": str, "text": str}], "queries": [str]}
// OUTPUT: {"system name": [[doc id, ...top 10] per query], "versions": {...}}
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import MiniSearch from "minisearch";
import { create, insertMultiple, search } from "@orama/orama";
import * as pagefind from "pagefind";

const [input, output, pagefindDir] = process.argv.slice(2);
const { docs, queries } = JSON.parse(readFileSync(input, "utf-8"));
const version = (name) =>
  JSON.parse(readFileSync(new URL(`./node_modules/${name}/package.json`, import.meta.url))).version;
const out = {
  versions: {
    minisearch: version("minisearch"),
    "@orama/orama": version("@orama/orama"),
    pagefind: version("pagefind"),
  },
};

const mini = new MiniSearch({ fields: ["text"], idField: "id" });
mini.addAll(docs);
out["minisearch fuzzy 0.2 prefix"] = queries.map((q) =>
  mini.search(q, { fuzzy: 0.2, prefix: true }).slice(0, 10).map((r) => r.id),
);

const db = create({ schema: { text: "string" } });
// Orama keeps its own ids unless the document has an "id" field: give it ours.
await insertMultiple(db, docs.map((d) => ({ id: d.id, text: d.text })), 500);
for (const tolerance of [0, 1, 2]) {
  const rows = [];
  for (const q of queries) {
    const found = await search(db, { term: q, tolerance, limit: 10 });
    rows.push(found.hits.map((h) => h.id));
  }
  out[`orama tolerance ${tolerance}`] = rows;
}
// Pagefind: its Node API indexes each document as one page (the same text, no HTML), then its
// browser runtime (pagefind.js, WASM) searches in Node, its fetches of file: URLs read from disk.
rmSync(pagefindDir, { recursive: true, force: true });
const { index } = await pagefind.createIndex({});
for (const [i, d] of docs.entries()) {
  await index.addCustomRecord({ url: `/${i}`, content: d.text, language: "en" });
}
await index.writeFiles({ outputPath: pagefindDir });
await pagefind.close();
const webFetch = globalThis.fetch;
globalThis.fetch = async (url, options) => {
  const address = new URL(url);
  if (address.protocol !== "file:") return webFetch(url, options);
  return new Response(readFileSync(fileURLToPath(address)));
};
const base = pathToFileURL(pagefindDir + "/").href;
const runtime = await import(base + "pagefind.js");
await runtime.options({ basePath: base });
await runtime.init();
const found = [];
for (const q of queries) {
  const answer = await runtime.search(q);
  const pages = await Promise.all(answer.results.slice(0, 10).map((r) => r.data()));
  // Pagefind may rewrite the url it was given (a trailing slash): read the number back.
  found.push(pages.map((p) => docs[Number(/\d+/.exec(p.url)[0])].id));
}
out["pagefind"] = found;
writeFileSync(output, JSON.stringify(out));
