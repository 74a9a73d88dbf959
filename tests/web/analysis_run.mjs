// Runs the page's JS analysis (core/groundkit/site/web_app/analysis.js) for
// tests/web/test_js_analysis.py: reads {identities, texts, stems} as JSON on stdin and prints
// {tokens, spans, readable (markup blanked), analyzed: [per identity: null, or per text
// [terms, termSpans, highlights]],
// stems: {algorithm: [stem of each word]}}. Usage: node analysis_run.mjs < request.json
import { readFileSync } from "node:fs";
import path from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const app = path.resolve(here, "../../core/groundkit/site/web_app");
const analysis = await import(pathToFileURL(path.join(app, "analysis.js")).href);
const request = JSON.parse(readFileSync(0, "utf8"));
const out = {
  tokens: request.texts.map((text) => analysis.tokens(text)),
  spans: request.texts.map((text) => analysis.tokenSpans(text)),
  known: request.texts.map((text) => analysis.knownToPython(text)),
  readable: request.texts.map((text) => analysis.withoutMarkup(text)),
  analyzed: [],
  refusals: [],
  stems: {},
};
for (const identity of request.identities) {
  out.refusals.push(analysis.identityRefusal(identity));
  const analyzer = await analysis.analyzerFromIdentity(identity);
  if (analyzer === null) {
    out.analyzed.push(null);
    continue;
  }
  out.analyzed.push({
    namespaces: analyzer.namespaces,
    texts: request.texts.map((text) => {
      const terms = analyzer.terms(text);
      return [terms, analyzer.termSpans(text), analysis.highlightSpans(analyzer, new Set(terms), text)];
    }),
  });
}
for (const [algorithm, words] of Object.entries(request.stems ?? {})) {
  const { stem } = await import(pathToFileURL(path.join(app, "languages", `${algorithm}.js`)).href);
  out.stems[algorithm] = words.map(stem);
}
process.stdout.write(JSON.stringify(out));
