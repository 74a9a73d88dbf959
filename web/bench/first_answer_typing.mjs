// As-you-type over a static site in node, with no browser: the page's JS first answer
// (first_answer.js) searched once per keystroke, every prefix of each query and of a typo of it
// (one letter dropped, as web/bench/drive.mjs types in the browser), prefix and typos on as the
// page searches. Reports per keystroke the CPU milliseconds of this process (user + system), the
// index files read (postings shards among them) and their bytes, as median, p99 and max, and the first keystroke of each query
// (a cold engine: nothing read yet but the head). Files come from disk: no network is counted.
// Usage: node web/bench/first_answer_typing.mjs SITE "query one" "query two" ... (ADR 0055)
import { readFile } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";

const [site, ...queries] = process.argv.slice(2);
const here = path.dirname(new URL(import.meta.url).pathname);
const app = path.resolve(here, "../../core/groundkit/site/web_app/first_answer.js");
const { FirstAnswer } = await import(pathToFileURL(app).href);

let files = 0;
let bytes = 0;
let shards = 0; // postings shards (index/postings/*.bin) read
const fetchBytes = async (relative) => {
  const found = await readFile(path.join(site, ...relative.split("/").map(decodeURIComponent)));
  files += 1;
  bytes += found.length;
  if (relative.startsWith("index/postings/")) shards += 1;
  return new Uint8Array(found);
};
const cpuMs = () => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};

const typo = (q) => q.replace(/([a-z])([a-z])([a-z]{3,})/, "$1$3"); // as drive.mjs
const opened = cpuMs();
const engine = await FirstAnswer.open(fetchBytes);
if (engine === null) throw new Error(`${site}: this collection keeps Python-first search`);
const open = { cpu_ms: cpuMs() - opened, files, bytes };
const keys = [];
for (const query of queries.flatMap((q) => [q, typo(q)])) {
  for (let n = 1; n <= query.length; n++) {
    const typed = query.slice(0, n);
    if (!typed.trim()) continue;
    const [f0, b0, s0, c0] = [files, bytes, shards, cpuMs()];
    await engine.search(typed, 10, { group: 3 }); // 10 pages of 3 passages, as the page asks
    keys.push({ typed, cpu_ms: cpuMs() - c0, files: files - f0, bytes: bytes - b0, shards: shards - s0 });
  }
}
const stats = (field) => {
  const xs = keys.map((k) => k[field]).sort((a, b) => a - b);
  const round = (x) => Math.round(x * 10) / 10;
  return { median: round(xs[xs.length >> 1]), p99: round(xs[Math.floor(xs.length * 0.99)]), max: round(xs.at(-1)) };
};
const worst = [...keys].sort((a, b) => b.cpu_ms - a.cpu_ms).slice(0, 5);
console.log(JSON.stringify({
  site, queries, keystrokes: keys.length, open,
  cpu_ms: stats("cpu_ms"), files: stats("files"), bytes: stats("bytes"), shards: stats("shards"),
  worst: worst.map((k) => ({ ...k, cpu_ms: Math.round(k.cpu_ms) })),
  total: { files, bytes },
}, null, 1));
