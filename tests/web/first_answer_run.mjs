// Runs the page's JS first answer (core/groundkit/site/web_app/first_answer.js) over a site
// folder on disk, for tests/web/test_first_answer.py: reads requests as JSON from a file
// ([{query, top_k, prefix, fuzzy, group}, ...]) and prints one JSON list of answers (null where the
// JS path leaves the query to the core). Usage: node first_answer_run.mjs SITE REQUESTS
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [site, requestsFile] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const app = path.resolve(here, "../../core/groundkit/site/web_app/first_answer.js");
const { FirstAnswer } = await import(pathToFileURL(app).href);

const fetchBytes = async (relative) =>
  new Uint8Array(await readFile(path.join(site, ...relative.split("/").map(decodeURIComponent))));
const engine = await FirstAnswer.open(fetchBytes);
if (engine === null) {
  console.log(JSON.stringify({ unsupported: true }));
  process.exit(0);
}
const requests = JSON.parse(await readFile(requestsFile, "utf8"));
const answers = [];
for (const { query, top_k: topK, prefix, fuzzy, group = 0 } of requests) {
  answers.push(await engine.search(query, topK, { prefix, fuzzy, group }));
}
console.log(JSON.stringify(answers));
