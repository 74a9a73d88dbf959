// groundkit's analysis in JavaScript (adr/0054): the same tokens, terms and word spans as the
// core's groundkit.analysis (tokenize.py, analyzer.py, multilingual.py, languages.py) for every
// analyzer identity a static site can record, so the page can answer before Python starts.
// The core is the truth: tests/web/test_js_analysis.py holds this copy to it on every identity
// and on generated Unicode, tests/web/stemmers.test.mjs holds each stemmer to its vocabulary.
// Works in a module worker, a page and node (no DOM, no node built-ins).
//
// API (stable):
//   await analyzerFromIdentity(identity) -> Analyzer, or null where this copy cannot analyze
//       as `identity` does (the page then keeps Python-first search); identity null or
//       undefined is the core's default analyzer (porter, Lucene's English stop words). It
//       imports the stemmer of each language the identity names (languages/<algorithm>.js).
//   identityRefusal(identity) -> null, or why analyzerFromIdentity gives null (a sentence; a
//       per-document identity whose parts differ from the core's is found only on loading).
//   jsLanguages() -> the Snowball algorithms ("german", ...) whose JS stemmer is the core's.
//   Analyzer: .identity, .namespaces (Analyzer.namespaces: [""], or ["de:", "fr:"]),
//       .tokens(text) (tokenize.tokens), .terms(text) (Analyzer.terms: a query's terms),
//       .termSpans(text) -> [[term, start, end]] (Analyzer.term_spans),
//       .matchedSpans(text, terms: Set) -> [[start, end]] (Analyzer.matched_spans),
//       .term(word) -> the term of one token, "" for a stop word (single-language only).
//   tokens(text), tokenSpans(text) -> [[token, start, end]] (tokenize.token_spans),
//   highlightSpans(analyzer, terms, text) -> merged [[start, end]] (highlight.highlight_spans),
//   casefold(text) (str.casefold), normalize(text) (NFKC then casefold),
//   foldDiacritics(term) (languages.fold_diacritics), knownToPython(text) (false when text
//   holds a code point CPython's Unicode tables do not know: leave such text to the core).
// Offsets are code points (Python str indices), never UTF-16 units.
import { LANGUAGES, RELEASE, JS_LANGUAGES } from "./languages/catalog.js";
import { stem as porterStem } from "./porter.js";
import { CASE_FLIPS, CASEFOLD, COMBINING, STOPWORDS, UNASSIGNED } from "./tables.js";

// ---- Unicode (CPython's tables where JS has none: tables.js, make_tables.py) ----
const inRanges = (ranges, cp) => {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid][1] < cp) lo = mid + 1;
    else if (ranges[mid][0] > cp) hi = mid - 1;
    else return true;
  }
  return false;
};

/** Python's str.casefold(): toLowerCase per code point, CPython's full foldings where they differ. */
export function casefold(text) {
  let out = "";
  for (const ch of text) {
    const folded = CASEFOLD.get(ch.codePointAt(0));
    out += folded === undefined ? ch.toLowerCase() : folded;
  }
  return out;
}

/**
 * str.isupper() of one code point NFKC keeps: casefold changes it, unless CPython's CASE_FLIPS
 * say otherwise (the engine's own case properties follow its Unicode, not CPython's).
 */
export const isUpperChar = (ch) => (casefold(ch) !== ch) !== inRanges(CASE_FLIPS, ch.codePointAt(0));

/** unicodedata.normalize("NFKC", text).casefold(): what the tokenizer reads. */
export const normalize = (text) => casefold(text.normalize("NFKC"));

const ENGINE_UNASSIGNED = /\p{Cn}/u;

/**
 * Whether every code point of text is assigned both in CPython's Unicode and in this JS
 * engine's (else: leave the text to the core, since one of them would class it differently).
 */
export function knownToPython(text) {
  for (const ch of text) {
    const cp = ch.codePointAt(0);
    if (cp >= 0x80 && (inRanges(UNASSIGNED, cp) || ENGINE_UNASSIGNED.test(ch))) return false;
  }
  return true;
}

const ASCII = /^[\x00-\x7f]*$/;
const DIACRITICS = /[\u0300-\u036f]/g;

/** languages.fold_diacritics: NFKD, combining diacritical marks dropped, NFC. */
export function foldDiacritics(term) {
  if (ASCII.test(term)) return term;
  return term.normalize("NFKD").replace(DIACRITICS, "").normalize("NFC");
}

const cpLength = (text) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};

// ---- the tokenizer (tokenize.py) ----
// Python's \w is alnum or "_": \p{L}\p{N}_ (the same code points for everything CPython's
// Unicode assigns; knownToPython guards the rest); [^\W\d_] is \p{L}\p{Nl}\p{No}; the marks
// the word pattern adds to \w are \p{M}.
const CJK =
  "\\u1100-\\u11ff\\u3040-\\u30ff\\u31f0-\\u31ff\\u3400-\\u4dbf\\u4e00-\\u9fff" +
  "\\ua960-\\ua97f\\uac00-\\ud7af\\uf900-\\ufaff\\uff66-\\uff9f\\u{20000}-\\u{3134f}";
const W = "\\p{L}\\p{N}_";
const LETTER = "[\\p{L}\\p{Nl}\\p{No}]";
const JOIN = `(?:(?<=${LETTER})['\\u2019.](?=${LETTER})|(?<=\\p{Nd})[.,](?=\\p{Nd}))`;
const PART = `(?:(?![${CJK}])[${W}\\p{M}])+`;
const WORD_SOURCE = `([${CJK}]+)|(${PART}(?:${JOIN}${PART})*)`;
const wordPattern = () => new RegExp(WORD_SOURCE, "gu");
/** The tokenizer's character classes, for the test that holds them to re's (test_js_analysis). */
export const WORD_CLASSES = { word: `[${W}]`, letter: LETTER, digit: "\\p{Nd}", mark: "\\p{M}" };
// Python's str.split() whitespace (\s of re on str), for _NON_ASCII_PIECE
const SPACE = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const nonAsciiPiece = () => new RegExp(`[^${SPACE}]*[^\\x00-\\x7f][^${SPACE}]*`, "gu");

// UTF-16 offsets of a string -> code-point offsets (length + 1 entries).
export function codePointOffsets(text) {
  const at = new Uint32Array(text.length + 1);
  let cp = 0;
  for (let i = 0; i < text.length; i++) {
    at[i] = cp;
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit < 0xdc00 && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next < 0xe000) {
        at[i + 1] = cp;
        i++;
      }
    }
    cp++;
  }
  at[text.length] = cp;
  return at;
}

// [token, start, end] of normalized text, in code points of it (tokenize._tokens).
function* normalizedTokens(normalized) {
  const cps = codePointOffsets(normalized);
  for (const match of normalized.matchAll(wordPattern())) {
    const at = cps[match.index];
    if (match[1] === undefined) {
      yield [match[2], at, cps[match.index + match[0].length]];
      continue;
    }
    const chars = Array.from(match[1]);
    if (chars.length === 1) yield [match[1], at, at + 1];
    else for (let i = 0; i + 1 < chars.length; i++) yield [chars[i] + chars[i + 1], at + i, at + i + 2];
  }
}

/** tokenize.tokens: the normalized tokens of text, CJK runs as overlapping bigrams. */
export function tokens(text) {
  const out = [];
  for (const [token] of normalizedTokens(normalize(text))) out.push(token);
  return out;
}

/** tokenize.cased_words: [word, the text before it] of NFKC text, case kept (a CJK run is one). */
export function casedWords(text) {
  const normalized = text.normalize("NFKC");
  const out = [];
  let at = 0;
  for (const match of normalized.matchAll(wordPattern())) {
    out.push([match[0], normalized.slice(at, match.index)]);
    at = match.index + match[0].length;
  }
  return out;
}

// tokenize._mapped: text normalized, and per code point of it the original span it came from.
function mapped(text) {
  const starts = [];
  const ends = [];
  const parts = [];
  const cps = codePointOffsets(text);
  const plain = (from, to) => {
    parts.push(text.slice(from, to).toLowerCase()); // ASCII between pieces: one to one
    for (let i = cps[from]; i < cps[to]; i++) {
      starts.push(i);
      ends.push(i + 1);
    }
  };
  let at = 0;
  for (const piece of text.matchAll(nonAsciiPiece())) {
    plain(at, piece.index);
    const raw = piece[0];
    const base = cps[piece.index];
    const folded = normalize(raw);
    parts.push(folded);
    const clusters = [];
    for (const ch of raw) {
      if (clusters.length && inRanges(COMBINING, ch.codePointAt(0))) clusters[clusters.length - 1] += ch;
      else clusters.push(ch);
    }
    const folds = clusters.map(normalize);
    if (folds.join("") === folded) {
      let from = base;
      clusters.forEach((cluster, i) => {
        const width = cpLength(cluster);
        for (let k = cpLength(folds[i]); k > 0; k--) {
          starts.push(from);
          ends.push(from + width);
        }
        from += width;
      });
    } else {
      const width = cpLength(raw);
      for (let k = cpLength(folded); k > 0; k--) {
        starts.push(base);
        ends.push(base + width);
      }
    }
    at = piece.index + raw.length;
  }
  plain(at, text.length);
  return [parts.join(""), starts, ends];
}

/** tokenize.token_spans: [token, start, end] with the code-point span of text it came from. */
export function tokenSpans(text) {
  const [normalized, starts, ends] = mapped(text);
  const out = [];
  for (const [token, start, end] of normalizedTokens(normalized)) out.push([token, starts[start], ends[end - 1]]);
  return out;
}

// ---- the analyzers (analyzer.py, multilingual.py) ----
const NAME = "groundkit.standard";
const VERSION = 2;
const MARKUP = "rst"; // markup.MARKUP: reST markup blanked before analysis (ADR 0073)
const POSSESSIVE = ["'s", "\u2019s"];
const ASCII_ONLY = new Set(["porter", "snowball-english"]);
const FOLDED_STOPWORD_SETS = new Set(["lucene-greek"]);
const PER_DOCUMENT = "per-document";
const CACHE_LIMIT = 1 << 16;

/** The Snowball algorithms whose JS stemmer is the core's (each held to its vocabulary). */
export const jsLanguages = () => [...JS_LANGUAGES];

const modules = new Map(); // algorithm -> promise of languages/<algorithm>.js
const loadLanguage = (algorithm) => {
  let found = modules.get(algorithm);
  if (!found) {
    found = import(`./languages/${algorithm}.js`);
    modules.set(algorithm, found);
  }
  return found;
};

// The identity Analyzer(stemmer, stopwords, fold, headings, markup).identity gives (key order aside).
function singleIdentity(stemmer, stopwords, fold, headings = 0, markup = undefined) {
  const identity = { name: NAME, version: VERSION, stemmer, stopwords, cjk: "bigram" };
  if (fold) identity.fold = "diacritics";
  if (headings) identity.headings = headings;
  if (markup) identity.markup = markup;
  if (stemmer.startsWith("snowball-") && stemmer !== "snowball-english") identity.release = RELEASE;
  return identity;
}

// Analyzer.for_language(code, fold).identity: Snowball's stop words, else Lucene's, else none.
function languageIdentity(code, fold, setNames) {
  const algorithm = LANGUAGES[code];
  const lists = [`snowball-${algorithm}`, `lucene-${algorithm}`];
  const stopwords = lists.find((name) => setNames.has(name)) ?? "none";
  return singleIdentity(`snowball-${algorithm}`, stopwords, fold);
}

// Python's codec.encode order does not matter here: equal as JSON values, keys in any order.
function same(a, b) {
  if (Array.isArray(a) || Array.isArray(b)) {
    return Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((x, i) => same(x, b[i]));
  }
  if (a && b && typeof a === "object" && typeof b === "object") {
    const keys = Object.keys(a);
    return keys.length === Object.keys(b).length && keys.every((k) => Object.hasOwn(b, k) && same(a[k], b[k]));
  }
  return a === b;
}

const algorithmOfStemmer = (stemmer) => (stemmer.startsWith("snowball-") ? stemmer.slice(9) : null);
const algorithmOfStopwords = (name) => /^(?:snowball|lucene)-(.+)$/.exec(name)?.[1] ?? null;

/** null when analyzerFromIdentity(identity) reproduces the core's analysis; else why not. */
export function identityRefusal(identity) {
  if (identity === null || identity === undefined) return null;
  if (typeof identity !== "object") return "the analyzer identity is not an object";
  if (identity.name !== NAME || identity.version !== VERSION) {
    return `its analyzer ${identity.name} ${identity.version} has no JS copy`;
  }
  if (identity.fold !== undefined && identity.fold !== "diacritics") return `its folding ${identity.fold} has no JS copy`;
  // a heading weight (ADR 0065) changes postings only, which the page reads as they are
  if (identity.headings !== undefined && !(Number.isInteger(identity.headings) && identity.headings > 0)) {
    return `its heading weight ${identity.headings} is not one the core writes`;
  }
  // reST markup left out of the text (ADR 0073) changes postings and the shipped words only
  if (identity.markup !== undefined && identity.markup !== MARKUP) return `its markup rule ${identity.markup} has no JS copy`;
  const fold = identity.fold === "diacritics";
  if (Object.hasOwn(identity, "languages")) {
    const codes = identity.languages;
    if (!Array.isArray(codes) || codes.length < 2 || new Set(codes).size !== codes.length) {
      return "its languages are not a list of 2+ distinct codes";
    }
    for (const code of codes) {
      if (!Object.hasOwn(LANGUAGES, code)) return `its language ${code} is unknown to this copy`;
      if (!JS_LANGUAGES.includes(LANGUAGES[code])) return `its language ${LANGUAGES[code]} has no JS stemmer held to the core's`;
    }
    return null; // the parts are checked against the stop word sets once loaded
  }
  const { stemmer, stopwords } = identity;
  if (typeof stemmer !== "string" || typeof stopwords !== "string") return "its stemmer or stop words are missing";
  if (stemmer !== "porter" && stemmer !== "none") {
    const algorithm = algorithmOfStemmer(stemmer);
    if (algorithm === null || !Object.values(LANGUAGES).includes(algorithm)) return `its stemmer ${stemmer} is unknown to this copy`;
    if (!JS_LANGUAGES.includes(algorithm)) return `its stemmer ${stemmer} has no JS copy held to the core's`;
  }
  if (!Object.hasOwn(STOPWORDS, stopwords)) {
    const algorithm = algorithmOfStopwords(stopwords);
    if (algorithm === null || !Object.values(LANGUAGES).includes(algorithm)) return `its stop words ${stopwords} are unknown to this copy`;
  }
  if (!same(identity, singleIdentity(stemmer, stopwords, fold, identity.headings, identity.markup))) {
    if (identity.release !== undefined && identity.release !== RELEASE) {
      return `it was stemmed by ${identity.release}; this page's stemmers are ${RELEASE}'s`;
    }
    return "its analyzer identity is not one the core writes";
  }
  return null;
}

/** Turns text into index terms exactly as the core's Analyzer of the same identity. */
export class Analyzer {
  constructor(identity, { stemmer, stopwords, fold, stem, stop, elided }) {
    this.identity = identity;
    this.namespaces = [""];
    this.stemmer = stemmer;
    this.stopwords = stopwords;
    this.fold = fold;
    this.stem = stem; // null: no stemmer
    this.stop = stop;
    this.stopFolded = FOLDED_STOPWORD_SETS.has(stopwords);
    this.elided = elided;
    this.asciiOnly = ASCII_ONLY.has(stemmer);
    this.cache = new Map();
  }

  /** Analyzer.languages: the Snowball language it was made for ([] for porter, none, or English
   * stemming with another stop word list). */
  get languages() {
    const algorithm = algorithmOfStemmer(this.stemmer);
    return algorithm === null || (algorithm === "english" && this.stopwords !== "snowball-english") ? [] : [algorithm];
  }

  /** Analyzer._term: the term of one token; "" for a stop word. */
  term(word) {
    let found = this.cache.get(word);
    if (found !== undefined) return found;
    let token = POSSESSIVE.some((p) => word.endsWith(p)) ? word.slice(0, -2) : word;
    if (this.elided.size) {
      const replaced = token.replaceAll("\u2019", "'");
      const at = replaced.indexOf("'");
      if (at >= 0) {
        const rest = replaced.slice(at + 1);
        if (rest && this.elided.has(replaced.slice(0, at))) token = rest;
      }
    }
    if (this.stop.has(this.stopFolded ? foldDiacritics(token) : token)) {
      found = "";
    } else {
      const term = this.stem === null || (this.asciiOnly && !ASCII.test(token)) ? token : this.stem(token);
      found = this.fold ? foldDiacritics(term) : term;
    }
    if (this.cache.size >= CACHE_LIMIT) this.cache.clear();
    this.cache.set(word, found);
    return found;
  }

  tokens(text) {
    return tokens(text);
  }

  terms(text) {
    const out = [];
    for (const word of tokens(text)) {
      const term = this.term(word);
      if (term) out.push(term);
    }
    return out;
  }

  termSpans(text) {
    const out = [];
    for (const [word, start, end] of tokenSpans(text)) {
      const term = this.term(word);
      if (term) out.push([term, start, end]);
    }
    return out;
  }

  matchedSpans(text, terms) {
    const out = [];
    for (const [term, start, end] of this.termSpans(text)) if (terms.has(term)) out.push([start, end]);
    return out;
  }
}

/** Multilingual: a query analyzed in every listed language, each term tagged with its code. */
export class MultilingualAnalyzer {
  constructor(identity, codes, parts) {
    this.identity = identity;
    this.codes = codes;
    this.parts = parts;
    this.namespaces = codes.map((code) => `${code}:`);
  }

  /** Multilingual.languages: the Snowball language of each code. */
  get languages() {
    return this.codes.map((code) => LANGUAGES[code]);
  }

  tokens(text) {
    return tokens(text);
  }

  terms(text) {
    const out = [];
    for (const code of this.codes) for (const term of this.parts[code].terms(text)) out.push(`${code}:${term}`);
    return out;
  }

  termSpans(text) {
    const out = [];
    for (const code of this.codes) {
      for (const [term, start, end] of this.parts[code].termSpans(text)) out.push([`${code}:${term}`, start, end]);
    }
    return out;
  }

  matchedSpans(text, terms) {
    const spans = new Map();
    for (const code of this.codes) {
      const prefix = `${code}:`;
      const own = new Set();
      for (const t of terms) if (t.startsWith(prefix)) own.add(t.slice(prefix.length));
      if (!own.size) continue;
      for (const [start, end] of this.parts[code].matchedSpans(text, own)) spans.set(`${start},${end}`, [start, end]);
    }
    return [...spans.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }
}

async function stopSet(name) {
  if (Object.hasOwn(STOPWORDS, name)) return new Set(STOPWORDS[name]);
  const module = await loadLanguage(algorithmOfStopwords(name));
  if (!Object.hasOwn(module.STOPWORDS, name)) return null;
  return new Set(module.STOPWORDS[name]);
}

async function single(identity, stemmer, stopwords, fold) {
  const stop = await stopSet(stopwords);
  if (stop === null) return null;
  let stem = null;
  let elided = new Set();
  if (stemmer === "porter") stem = porterStem;
  const algorithm = algorithmOfStemmer(stemmer);
  if (algorithm !== null) {
    const module = await loadLanguage(algorithm);
    stem = module.stem;
    elided = new Set(module.ELISIONS);
  }
  return new Analyzer(identity, { stemmer, stopwords, fold, stem, stop, elided });
}

/** The analyzer a site's identity records (null: the core's default), or null (see identityRefusal). */
export async function analyzerFromIdentity(identity) {
  // null: the core's Analyzer() (heading weight 3, HEADING_WEIGHT; the markup rule)
  if (identity === null || identity === undefined) identity = singleIdentity("porter", "lucene-english", false, 3, MARKUP);
  if (identityRefusal(identity) !== null) return null;
  const fold = identity.fold === "diacritics";
  if (!Object.hasOwn(identity, "languages")) return single(identity, identity.stemmer, identity.stopwords, fold);
  const codes = identity.languages;
  const parts = {};
  const identities = [];
  for (const code of codes) {
    const module = await loadLanguage(LANGUAGES[code]);
    const part = languageIdentity(code, fold, new Set(Object.keys(module.STOPWORDS)));
    identities.push(part);
    parts[code] = await single(part, part.stemmer, part.stopwords, fold);
  }
  const want = { name: NAME, version: VERSION, stemmer: PER_DOCUMENT, languages: codes, parts: identities, cjk: "bigram" };
  if (fold) want.fold = "diacritics";
  if (identity.headings) want.headings = identity.headings;
  if (identity.markup) want.markup = identity.markup;
  if (!same(identity, want)) return null;
  return new MultilingualAnalyzer(identity, codes, parts);
}

// ---- reST markup a reader never sees (markup.py, ADR 0073): blanked, one space per code point ----
const ROLE_NAME = `[A-Za-z][${W}+.\\-]*(?::[A-Za-z][${W}+.\\-]*)*`;
const MARKUP_PASSES = [
  [":", new RegExp(`:(?:(?<![${W}\`]:)${ROLE_NAME}:(?=\`)|(?<=\`:)${ROLE_NAME}:(?![${W}\`]))`, "gu")],
  [".. _", /(?<![^\n])[ \t]*\.\. _(?:`[^`\n]*`|[^`:\n]+):(?:[ \t][^\n]*)?(?![^\n])/gu],
  ["<", new RegExp(`<(?<=[${SPACE}]<)[^<>\`\\n]+>(?=\`)`, "gu")],
  ["`_", new RegExp(`_(?<=\`_)_?(?![${W}])`, "gu")],
];

/** markup.without_markup: text with its reST role names, hyperlink targets, embedded URIs and
 * reference underscores blanked, code point for code point. */
export function withoutMarkup(text) {
  if (!text.includes("`") && !text.includes(".. _")) return text;
  for (const [trigger, pattern] of MARKUP_PASSES) {
    if (text.includes(trigger)) text = text.replace(pattern, (found) => " ".repeat(cpLength(found)));
  }
  return text;
}

/** highlight.highlight_spans: the sorted spans of words whose term is in terms, overlaps merged,
 * over the text as analyzed (Analyzer.readable: markup blanked where the identity says so). */
export function highlightSpans(analyzer, terms, text) {
  const wanted = terms instanceof Set ? terms : new Set(terms);
  if (!wanted.size) return [];
  const readable = analyzer.identity?.markup === MARKUP ? withoutMarkup(text) : text;
  const merged = [];
  for (const [start, end] of analyzer.matchedSpans(readable, wanted)) {
    if (merged.length && start < merged.at(-1)[1]) merged.at(-1)[1] = Math.max(merged.at(-1)[1], end);
    else merged.push([start, end]);
  }
  return merged;
}
