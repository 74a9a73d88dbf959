// The page's first answer, before Python starts (ADR 0062, 0055): a JS copy of the core's BM25 query
// path over the site's static index, for every collection whose analyzer analysis.js reproduces
// (ADR 0054: the default, no stemmer, each Snowball language it ships, folded diacritics,
// per-document languages). It reads the same files the core's StaticReader reads, analyzes with
// analysis.js, expands prefixes and typos as groundkit.retrieval.expansion does (namespaces
// included), scores with the same float operations in the same order, breaks ties the same way
// and builds the page's result rows as groundkit.site.page_runtime does. The core is the truth:
// tests/web/test_first_answer.py holds this copy to it (ids, ranks, score bits, highlights,
// display text) over SciFact, Cranfield, the sample and language sites, and the browser test
// compares every first answer with the core's once Python is up.
//
// API: await FirstAnswer.open(fetchBytes) -> engine or null (null: this collection keeps
// Python-first search); await engine.search(query, topK) -> {results, expansions, terms} as the
// page runtime's search() returns them (with abstained, lexical_share and lexical_bar where the
// site ships a "nothing here" bar, adr/0069, and absent_name where a name it lacks was why,
// adr/0080), or null where the core must answer (a query holding a code point this page's
// Unicode tables do not know).
import { analyzerFromIdentity, casedWords, codePointOffsets, highlightSpans, isUpperChar, knownToPython, tokens } from "./analysis.js";

const W = "\\p{L}\\p{N}_"; // Python's \w: alphanumerics and the underscore

// ---- code points and Python's orderings ----
const isSurrogate = (unit) => unit >= 0xd800 && unit < 0xe000;
const cmp = (a, b) => {
  // Python's str order: code points. UTF-16 units order the same way until a surrogate differs.
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x === y) continue;
    if (!isSurrogate(x) && !isSurrogate(y)) return x - y;
    return a.codePointAt(i) - b.codePointAt(i); // a surrogate pair is above every BMP unit
  }
  return a.length - b.length;
};
const cpLength = (text) => {
  let n = 0;
  for (const _ of text) n++;
  return n;
};
const isAlpha = (text) => /^\p{L}+$/u.test(text);

// text[start:end] in code points, as Python slices (UTF-16 offsets kept per text with astrals).
const astralOffsets = new Map(); // text -> UTF-16 offset of each code point (a few texts)
function cpSlice(text, start, end) {
  if (!/[\ud800-\udfff]/.test(text)) return text.slice(start, end);
  let units = astralOffsets.get(text);
  if (!units) {
    units = [];
    let i = 0;
    for (const ch of text) {
      units.push(i);
      i += ch.length;
    }
    units.push(i);
    if (astralOffsets.size >= 16) astralOffsets.clear();
    astralOffsets.set(text, units);
  }
  return text.slice(units[start], units[end]);
}

// Python's repr() of a float: the shortest digits that round-trip, in Python's layout.
export function floatRepr(x) {
  if (Number.isInteger(x) && Math.abs(x) < 1e16) return x.toFixed(1);
  const [mantissa, exp] = x.toExponential().split("e");
  const e = Number(exp);
  const digits = mantissa.replace("-", "").replace(".", "");
  const sign = x < 0 ? "-" : "";
  if (e < -4 || e >= 16) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${m}e${e < 0 ? "-" : "+"}${String(Math.abs(e)).padStart(2, "0")}`;
  }
  if (e < 0) return `${sign}0.${"0".repeat(-e - 1)}${digits}`;
  const whole = digits.slice(0, e + 1).padEnd(e + 1, "0");
  const frac = digits.slice(e + 1);
  return `${sign}${whole}.${frac || "0"}`;
}

// ---- the static collection (groundkit.store.static) ----
async function inflateJson(bytes) {
  const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("deflate"));
  return JSON.parse(await new Response(stream).text());
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(text) {
  let crc = 0xffffffff;
  for (const byte of new TextEncoder().encode(text)) crc = CRC_TABLE[(crc ^ byte) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

const hex4 = (n) => n.toString(16).padStart(4, "0");
const BLOCK = 128;

class StaticIndex {
  constructor(fetchBytes, head) {
    this.fetchBytes = fetchBytes;
    this.head = head;
    this.keys = head.keys;
    this.slot = new Map(head.keys.map((key, slot) => [key, slot]));
    this.files = new Map(); // path -> promise of parsed JSON
    this.sources = new Map();
    this.postings = new Map(); // shard -> Map(term -> [keys, tfs])
  }

  json(path) {
    let found = this.files.get(path);
    if (!found) {
      found = this.fetchBytes(path).then(inflateJson);
      this.files.set(path, found);
    }
    return found;
  }

  // A range of terms per shard (head.postings_firsts), else, on sites before it, crc32.
  shardOf(term) {
    const firsts = this.head.postings_firsts;
    if (!firsts) return crc32(term) % this.head.shards;
    let lo = 0;
    let hi = firsts.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cmp(term, firsts[mid]) < 0) hi = mid;
      else lo = mid + 1;
    }
    return Math.max(lo - 1, 0);
  }

  async shard(term) {
    const shard = this.shardOf(term);
    let found = this.postings.get(shard);
    if (!found) {
      const raw = await this.json(`index/postings/${hex4(shard)}.bin`);
      found = new Map();
      for (const [name, [gaps, tfs]] of Object.entries(raw)) {
        let key = 0;
        found.set(name, [gaps.map((gap) => (key += gap)), tfs]);
      }
      this.postings.set(shard, found);
    }
    return found;
  }

  async postingsOf(term) {
    return (await this.shard(term)).get(term) || [[], []];
  }

  // The sorted terms that start with prefix (reader.indexed_terms).
  async indexedTerms(prefix = "") {
    const firsts = this.head.term_blocks;
    const bisectRight = (x) => {
      let lo = 0;
      let hi = firsts.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if (cmp(x, firsts[mid]) < 0) hi = mid;
        else lo = mid + 1;
      }
      return lo;
    };
    const low = Math.max(bisectRight(prefix) - 1, 0);
    const high = prefix ? bisectRight(prefix + "\u{10ffff}") : firsts.length;
    const wanted = [];
    for (let b = low; b < Math.max(high, low + 1) && b < firsts.length; b++) wanted.push(b);
    const blocks = await Promise.all(wanted.map((b) => this.json(`index/terms/${hex4(b)}.bin`)));
    return blocks.flat().filter((t) => t.startsWith(prefix));
  }

  async words() {
    if (!this._words) {
      const count = this.head.word_blocks;
      const blocks = await Promise.all([...Array(count).keys()].map((b) => this.json(`index/words/${b}.bin`)));
      this._words = blocks.flat();
    }
    return this._words;
  }

  async text(document) {
    let found = this.sources.get(document[1]);
    if (!found) {
      const path = "sources/" + document[1].split("/").map(encodeURIComponent).join("/");
      found = this.fetchBytes(path, true).then((bytes) => new TextDecoder("utf-8", { fatal: true }).decode(bytes));
      this.sources.set(document[1], found);
    }
    return found;
  }

  async chunk(key) {
    const slot = this.slot.get(key);
    // A site that ships passages (head.text_block) has each chunk's row and text in one small
    // block; an older one has the row in its chunks/ block and the text in the source file.
    const per = this.head.text_block;
    const row = per
      ? (await this.json(`index/texts/${hex4(Math.floor(slot / per))}.bin`))[slot % per]
      : (await this.json(`index/chunks/${hex4(Math.floor(slot / BLOCK))}.bin`))[slot % BLOCK];
    const [start, end, startLine, endLine, metadata, storedId, storedText] = row;
    const document = this.head.documents[this.head.document[slot]];
    const index = this.head.chunk_index[slot];
    let text = storedText;
    if (text === null) text = cpSlice(await this.text(document), start, end);
    const chunkId = storedId || chunkIdFor(document[0], index, start, end);
    return { chunkId, document, index, text, start, end, startLine, endLine, metadata };
  }

  // grouping.grouped: the best `pages` documents of the ranked hits by grouping.page_score
  // (equal scores keep the order of the pages' best passages), each with its first `passages`
  // passages; the hits page by page, and sizes.
  grouped(hits, pages, passages) {
    const found = new Map(); // each page's passages in rank order, pages by their best one
    for (const hit of hits) {
      const documentIndex = this.head.document[this.slot.get(hit.key)];
      if (!found.has(documentIndex)) found.set(documentIndex, []);
      found.get(documentIndex).push(hit);
    }
    const ranked = [...found.values()].map((p, order) => ({
      score: pageScore(p[0].score, p.length > 1 ? p[1].score : null),
      order,
      kept: p.slice(0, passages),
    }));
    ranked.sort((a, b) => (a.score === b.score ? a.order - b.order : b.score - a.score));
    const best = ranked.slice(0, pages).map((page) => page.kept);
    return [best.flat(), best.map((g) => g.length)];
  }

  tieKey(key) {
    const slot = this.slot.get(key);
    const document = this.head.documents[this.head.document[slot]];
    return [document[3], this.head.chunk_index[slot], document[1]];
  }
}

// SHA-256 (FIPS 180-4) in plain JS: crypto.subtle exists only in secure contexts, and a site
// may be served over plain http on a local network.
const K256 = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
  0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
  0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
  0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
  0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
  0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
  0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
  0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
]);

export function sha256Hex(bytes) {
  const length = bytes.length;
  const padded = new Uint8Array((((length + 9 + 63) >> 6) << 6));
  padded.set(bytes);
  padded[length] = 0x80;
  const view = new DataView(padded.buffer);
  view.setUint32(padded.length - 8, Math.floor(length / 0x20000000));
  view.setUint32(padded.length - 4, (length << 3) >>> 0);
  const h = new Uint32Array([0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19]);
  const w = new Uint32Array(64);
  const rotr = (x, n) => (x >>> n) | (x << (32 - n));
  for (let at = 0; at < padded.length; at += 64) {
    for (let i = 0; i < 16; i++) w[i] = view.getUint32(at + 4 * i);
    for (let i = 16; i < 64; i++) {
      const s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >>> 3);
      const s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >>> 10);
      w[i] = (w[i - 16] + s0 + w[i - 7] + s1) >>> 0;
    }
    let [a, b, c, d, e, f, g, k] = h;
    for (let i = 0; i < 64; i++) {
      const t1 = (k + (rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25)) + ((e & f) ^ (~e & g)) + K256[i] + w[i]) >>> 0;
      const t2 = ((rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22)) + ((a & b) ^ (a & c) ^ (b & c))) >>> 0;
      [k, g, f, e, d, c, b, a] = [g, f, e, (d + t1) >>> 0, c, b, a, (t1 + t2) >>> 0];
    }
    [a, b, c, d, e, f, g, k].forEach((x, i) => (h[i] = (h[i] + x) >>> 0));
  }
  return Array.from(h, (x) => x.toString(16).padStart(8, "0")).join("");
}

function chunkIdFor(documentId, index, start, end) {
  const key = `groundkit:chunk\0${documentId}\0${index}\0${start}\0${end}`;
  return "chk_" + sha256Hex(new TextEncoder().encode(key)).slice(0, 32);
}

// grouping.page_score: a page's best passage's score plus half its second's (a negative second
// adds nothing).
const pageScore = (best, second) => (second === null ? best : best + Math.max(second, 0) * 0.5);

// GroupOptions.depth_for: the passages ranked before grouping (config.py's DEFAULT_LEG_DEPTH
// and GROUP_DEPTH_PER_PAGE; MAX_LEG_DEPTH is 100 x MAX_TOP_K, past any top_k the page asks).
const groupDepth = (topK) => Math.max(100, 10 * topK);

// ---- BM25 (groundkit.index.bm25): Lucene's idf, idf * tf / (tf + norm), in canonical order ----
const K1 = 1.2;
const B = 0.75;
const BLEND = "\0";

function blendMembers(term) {
  if (!term.startsWith(BLEND)) return null;
  const [weight, ...members] = term.slice(1).split(BLEND);
  return [Number(weight), members];
}

class BM25 {
  constructor(index) {
    this.index = index;
    const head = index.head;
    this.n = head.keys.length;
    const avgdl = this.n ? head.total_length / this.n : 1.0;
    this.norms = new Map();
    head.keys.forEach((key, slot) => {
      this.norms.set(key, avgdl ? K1 * (1.0 - B + (B * head.lengths[slot]) / avgdl) : K1);
    });
    this.lists = new Map();
    this.storedIdf = new Map(head.idf);
  }

  // Lucene's idf as the machine that built the site computed it (the head's table: a JS
  // engine's Math.log differs from C's log in the last bit for some 7% of arguments).
  idf(df) {
    const stored = this.storedIdf.get(df);
    if (stored === undefined) throw new Error(`the site's idf table has no document frequency ${df}`);
    return stored;
  }

  // PostingsCache.get: a blend's list sums its members' frequencies per chunk.
  async list(term) {
    let found = this.lists.get(term);
    if (!found) {
      const blended = blendMembers(term);
      if (blended === null) {
        const [keys, tfs] = await this.index.postingsOf(term);
        const pairs = keys.map((key, i) => [key, tfs[i]]).sort((a, b) => a[0] - b[0]);
        found = pairs;
      } else {
        const summed = new Map();
        for (const member of blended[1]) {
          for (const [key, tf] of await this.list(member)) summed.set(key, (summed.get(key) || 0) + tf);
        }
        found = [...summed.entries()].sort((a, b) => a[0] - b[0]);
      }
      this.lists.set(term, found);
    }
    return found;
  }

  async df(term) {
    const blended = blendMembers(term);
    if (blended !== null) {
      let most = -Infinity;
      for (const member of blended[1]) most = Math.max(most, await this.df(member));
      return most;
    }
    return (await this.list(term)).length;
  }

  async termIdf(term) {
    const blended = blendMembers(term);
    const idf = this.idf(await this.df(term));
    return blended === null ? idf : blended[0] * idf;
  }

  static blend(members, weight) {
    const sorted = [...new Set(members)].sort(cmp);
    return BLEND + [floatRepr(weight), ...sorted].join(BLEND);
  }

  // The best topK chunk keys and scores, ties in tie-key order, then chunk key.
  async topK(terms, topK) {
    const counts = new Map();
    for (const term of terms) counts.set(term, (counts.get(term) || 0) + 1);
    const matching = [];
    for (const [term, qtf] of counts) {
      const held = (await this.list(term)).length;
      if (held) matching.push({ term, qtf, df: held });
    }
    matching.sort((a, b) => b.df - a.df || cmp(a.term, b.term));
    const scores = new Map();
    for (const { term, qtf } of matching) {
      const idf = await this.termIdf(term);
      for (const [key, tf] of await this.list(term)) {
        const value = idf * (tf / (tf + this.norms.get(key)));
        scores.set(key, (scores.get(key) ?? 0.0) + qtf * value);
      }
    }
    const ranked = [...scores.entries()].map(([key, score]) => ({ key, score, tie: this.index.tieKey(key) }));
    ranked.sort((a, b) => {
      if (a.score !== b.score) return b.score - a.score;
      const [x, y] = [a.tie, b.tie];
      return cmp(x[0], y[0]) || x[1] - y[1] || cmp(x[2], y[2]) || a.key - b.key;
    });
    return ranked.slice(0, topK);
  }
}

// ---- prefix and typo expansion (groundkit.retrieval.expansion, groundkit.index.lexicon) ----
const FUZZY_WEIGHT = 0.75;
const MIN_PREFIX = 2;
const PREFIX_LIMIT = 50;
const FUZZY_LIMIT = 10;
const RARE_DF = 2;
const RARE_RATIO = 10;
const SHORT_WORD = 4;
const MAX_WORD_LETTERS = 64;
const MAX_EXPANDED_WORDS = 64;

export const typoBudget = (word) => {
  const n = cpLength(word);
  if (n < SHORT_WORD || (n === SHORT_WORD && !isAlpha(word))) return 0;
  return n < 8 ? 1 : 2;
};

// The optimal-string-alignment distance of a and b (arrays of code points, or strings of BMP
// characters), or limit + 1.
export function editDistance(a, b, limit) {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before = [];
  let previous = [...Array(b.length + 1).keys()];
  for (let i = 1; i <= a.length; i++) {
    const current = [i, ...Array(b.length).fill(0)];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, before[j - 2] + 1);
      current[j] = best;
    }
    if (Math.min(...current) > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return Math.min(previous[b.length], limit + 1);
}

const hasSurrogate = (text) => /[\ud800-\udfff]/.test(text);

// Whether b is exactly one edit (insertion, deletion, substitution, adjacent transposition)
// from a, which differs from it.
function withinOne(a, b, aChars) {
  if (hasSurrogate(a) || hasSurrogate(b)) return editDistance(aChars, Array.from(b), 1) === 1;
  const n = a.length;
  const m = b.length;
  if (Math.abs(n - m) > 1) return false;
  let i = 0;
  while (i < n && i < m && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  if (n === m) {
    if (a.slice(i + 1) === b.slice(i + 1)) return true; // a substitution
    return i + 1 < n && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
  }
  return n > m ? a.slice(i + 1) === b.slice(i) : a.slice(i) === b.slice(i + 1);
}

// editDistance on strings: their UTF-16 units where neither holds a surrogate.
function distance(a, b, aChars, limit) {
  if (hasSurrogate(a) || hasSurrogate(b)) return editDistance(aChars, Array.from(b), limit);
  return editDistance(a, b, limit);
}

// bisect_left: the first index of a sorted list (code-point order) whose item is not below x.
function lowerBound(sorted, x, lo = 0) {
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (cmp(sorted[mid], x) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// A sorted list's slice of the strings that start with the code point `first` (bisection).
function sliceStarting(sorted, first) {
  const low = (x) => lowerBound(sorted, x);
  const cp = first.codePointAt(0);
  return [low(String.fromCodePoint(cp)), cp >= 0x10ffff ? sorted.length : low(String.fromCodePoint(cp + 1))];
}

class Lexicon {
  constructor(index) {
    this.index = index;
    this.memo = new Map(); // "near|term|edits" or "words|word|edits" -> found
  }

  async all() {
    if (!this.terms) {
      this.terms = await this.index.indexedTerms("");
      this.termSet = new Set(this.terms);
    }
    return this.terms;
  }

  async has(term) {
    await this.all();
    return this.termSet.has(term);
  }

  // Lexicon.near: every term one edit away; those two away that keep the first letter. (The
  // core finds the first through a symmetric-delete table; one linear pass finds the same set
  // here without building one.)
  async near(term, maxEdits) {
    const key = `near\0${term}\0${maxEdits}`;
    if (this.memo.has(key)) return this.memo.get(key);
    const terms = await this.all();
    const probe = Array.from(term);
    const found = new Map();
    for (const known of terms) {
      if (known !== term && Math.abs(known.length - term.length) <= 2 && withinOne(term, known, probe)) found.set(known, 1);
    }
    if (maxEdits > 1 && term) {
      const [lo, hi] = sliceStarting(terms, term);
      for (let i = lo; i < hi; i++) {
        const known = terms[i];
        if (known === term || known.length < probe.length - maxEdits || known.length > 2 * (probe.length + maxEdits)) continue;
        const d = distance(term, known, probe, maxEdits);
        if (d <= maxEdits) found.set(known, d);
      }
    }
    this.memo.set(key, found);
    return found;
  }

  // Lexicon._of_kind: the surface words that are identifiers, or those that are not.
  async ofKind(identifiers) {
    if (!this.kinds) {
      const words = await this.index.words();
      this.kinds = [words.filter((w) => !w.includes("_")), words.filter((w) => w.includes("_"))];
    }
    return this.kinds[identifiers ? 1 : 0];
  }

  // Lexicon.words_begun: the surface words that start with prefix (itself included).
  async wordsBegun(prefix) {
    const words = await this.index.words();
    const lo = lowerBound(words, prefix);
    return words.slice(lo, lowerBound(words, prefix + "\u{10ffff}", lo));
  }

  // Lexicon.is_word: whether word is one of the surface words.
  async isWord(word) {
    const words = await this.index.words();
    const at = lowerBound(words, word);
    return at < words.length && words[at] === word;
  }

  // Lexicon.near_words: surface words within maxEdits that keep the word's first letter; an
  // identifier (holding "_") against the identifiers, any other word against the others.
  async nearWords(word, maxEdits) {
    if (!word) return new Map();
    const key = `words\0${word}\0${maxEdits}`;
    if (this.memo.has(key)) return this.memo.get(key);
    const words = await this.ofKind(word.includes("_"));
    const probe = Array.from(word);
    const found = new Map();
    const [lo, hi] = sliceStarting(words, word);
    for (let i = lo; i < hi; i++) {
      const known = words[i];
      if (known === word || known.length < probe.length - maxEdits || known.length > 2 * (probe.length + maxEdits)) continue;
      const d = distance(word, known, probe, maxEdits);
      if (d <= maxEdits) found.set(known, d);
    }
    this.memo.set(key, found);
    return found;
  }
}

class QueryRefused extends Error {}

async function expandQuery(query, analyzer, lexicon, bm25, { prefix, fuzzy }) {
  const terms = analyzer.terms(query);
  const plain = [...terms]; // the query's own terms, before any expansion changes terms
  const out = { terms, prefix: Object.create(null), fuzzy: Object.create(null), guessed: Object.create(null) };
  const words = tokens(query);
  const distinct = [...new Set(words)];
  const expanded = fuzzy ? distinct : prefix ? words.slice(-1) : [];
  if (fuzzy && expanded.length > MAX_EXPANDED_WORDS)
    throw new QueryRefused(`a typo-tolerant (fuzzy) query may have at most ${MAX_EXPANDED_WORDS} distinct words, this one has ${expanded.length}: shorten it or search without fuzzy`);
  const long = expanded.find((word) => cpLength(word) > MAX_WORD_LETTERS);
  if (long !== undefined) {
    const option = fuzzy ? "fuzzy" : "prefix";
    throw new QueryRefused(`a word of ${cpLength(long)} characters is too long for ${option} search (at most ${MAX_WORD_LETTERS}): shorten it or search without ${option}`);
  }
  const df = (term) => bm25.df(term);
  const found = new Map(); // each word's near terms, found once (expand_query's near)
  const near = async (word) => {
    if (!found.has(word)) {
      let typos = await nearTerms(word, analyzer, lexicon, df);
      const own = analyzer.terms(word);
      if (typos.length && own.length === 1 && (await df(own[0]))) typos = await readInContext(own[0], typos, plain, bm25); // held and rare (adr/0081)
      found.set(word, typos);
    }
    return found.get(word);
  };
  const last = words.at(-1);
  if (prefix && words.length && cpLength(last) >= MIN_PREFIX) await complete(last, out, analyzer, lexicon, bm25, fuzzy ? near : null);
  if (fuzzy) {
    for (const word of distinct) {
      const typos = Object.hasOwn(out.prefix, word) ? [] : await near(word);
      if (typos.length) {
        out.fuzzy[word] = typos;
        terms.push(BM25.blend(typos, await typoWeight(word, typos, analyzer, bm25)));
        if (cpLength(word) === SHORT_WORD && typos.length > 1) out.guessed[word] = [terms.at(-1), []]; // its own terms stay
      }
    }
  }
  return out;
}

// ExpandedQuery.evidence_terms: a guessed word's own terms in place of its expansion.
function evidenceTerms(terms, expanded) {
  const out = [...terms];
  for (const [blend, own] of Object.values(expanded.guessed)) out.splice(out.indexOf(blend), 1, ...own);
  return out;
}

// expansion._typo_weight: full weight where the collection holds none of the word's terms and one
// term alone is within its typo budget.
async function typoWeight(word, near, analyzer, bm25) {
  if (near.length !== 1) return FUZZY_WEIGHT;
  for (const term of analyzer.terms(word)) if ((await bm25.df(term)) > 0) return FUZZY_WEIGHT;
  return 1.0;
}

// ExpandedQuery.without (question_words.content_terms): a question's framing terms ("how do I",
// head.question_terms) are left out of its analyzed terms unless they are all it has; expansions stay.
function contentTerms(terms, framing) {
  const plain = terms.filter((t) => blendMembers(t) === null);
  const kept = plain.filter((t) => !framing.has(t));
  return [...(kept.length ? kept : plain), ...terms.filter((t) => blendMembers(t) !== null)];
}

const byLengthThenTerm = (a, b) => cpLength(a) - cpLength(b) || cmp(a, b);

// expansion._space: the namespace a term carries ("de:" in a multilingual collection), else "".
const spaceOf = (term, analyzer) => analyzer.namespaces.find((space) => space && term.startsWith(space)) ?? "";
// expansion._plain: a word of letters (not an identifier such as paginator.count).
const isPlain = (term, analyzer) => isAlpha(term.slice(spaceOf(term, analyzer).length));

// expansion._complete: the last word's completions, added to out's terms and trace (near: a
// word's typo corrections, where typos are on, else null).
async function complete(word, out, analyzer, lexicon, bm25, near) {
  const df = (term) => bm25.df(term);
  const own = analyzer.terms(word);
  const held = [];
  for (const term of own) held.push(await df(term));
  const begun = await begunBy(word, analyzer, lexicon);
  let completed;
  if (!own.length || (await lexicon.isWord(word)) || (Math.max(...held) && !begun.length)) {
    // a word, or the stem of one it begins: its own term is the likeliest reading
    const found = begun.filter((t) => !own.includes(t)).slice(0, PREFIX_LIMIT);
    const counts = [];
    for (const term of found) counts.push(await df(term));
    completed = found.filter((_, i) => counts[i] > 0);
    let total = own.length ? Math.max(...held) : bm25.n;
    for (const n of counts) total += n;
    const single = own.length === 1 && out.terms.includes(own[0]);
    const joined = single ? await readInContext(own[0], completed, out.terms, bm25) : [];
    if (joined.length) out.terms[out.terms.lastIndexOf(own[0])] = BM25.blend([own[0], ...joined], 1.0);
    for (const term of completed) {
      if (!joined.includes(term)) out.terms.push(BM25.blend([term], counts[found.indexOf(term)] / total));
    }
  } else {
    if (!begun.length && near !== null && (await near(word)).length) return;
    const found = begun.length ? begun : await shorter(word, analyzer, lexicon, df);
    completed = [];
    for (const term of found.slice(0, PREFIX_LIMIT)) if ((await df(term)) > 0) completed.push(term);
    if (!completed.length) return;
    for (const term of own) out.terms.splice(out.terms.lastIndexOf(term), 1);
    out.terms.push(BM25.blend(completed, 1.0));
    if (!begun.length) out.guessed[word] = [out.terms.at(-1), own];
  }
  if (completed.length) out.prefix[word] = completed;
}

// expansion._read_in_context: the completions that more of the chunks holding every other term of
// the query hold than hold the word itself (none without such a chunk).
async function readInContext(term, completed, terms, bm25) { // completions or typo corrections
  if (!completed.length) return [];
  const others = [];
  for (const other of new Set(terms)) if (other !== term) others.push([await bm25.df(other), other]);
  const held = others.filter(([count]) => count > 0).sort((a, b) => a[0] - b[0] || cmp(a[1], b[1])); // the rarest first
  if (!held.length) return [];
  const keysOf = async (t) => (await bm25.list(t)).map(([key]) => key);
  let context = new Set(await keysOf(held[0][1]));
  for (const [, other] of held.slice(1)) {
    const next = new Set(await keysOf(other));
    context = new Set([...context].filter((key) => next.has(key)));
    if (!context.size) return [];
  }
  const within = async (t) => (await bm25.list(t)).filter(([key]) => context.has(key)).length;
  const mine = await within(term);
  const joined = [];
  for (const done of completed) if ((await within(done)) > mine) joined.push(done);
  return joined;
}

// expansion._begun: the terms of the surface words word begins and the indexed terms it begins
// as typed, plain words only where there are any, shortest first.
async function begunBy(word, analyzer, lexicon) {
  const found = new Set();
  for (const w of await lexicon.wordsBegun(word)) for (const t of analyzer.terms(w)) found.add(t);
  for (const space of analyzer.namespaces) for (const t of await lexicon.index.indexedTerms(space + word)) found.add(t);
  const plain = [...found].filter((t) => isPlain(t, analyzer));
  return (plain.length ? plain : [...found]).sort(byLengthThenTerm);
}

// expansion._shorter: the longest indexed term a word that begins no word begins with, else the
// completions of its longest shorter prefix that has some, down to half the word.
async function shorter(word, analyzer, lexicon, df) {
  const chars = Array.from(word);
  const shortest = Math.max(MIN_PREFIX, Math.ceil(chars.length / 2));
  const own = new Set(analyzer.terms(word));
  const spaced = (head) => analyzer.namespaces.map((space) => space + head);
  for (let length = chars.length - 1; length >= shortest; length--) {
    const held = [];
    for (const stem of spaced(chars.slice(0, length).join(""))) if (!own.has(stem) && (await df(stem)) > 0) held.push(stem);
    if (held.length) return held;
  }
  for (let length = chars.length - 1; length >= shortest; length--) {
    const found = new Set();
    for (const head of spaced(chars.slice(0, length).join(""))) for (const t of await lexicon.index.indexedTerms(head)) if (!own.has(t)) found.add(t);
    if (found.size) return [...found].sort(byLengthThenTerm);
  }
  return [];
}

async function nearTerms(word, analyzer, lexicon, df) {
  const budget = typoBudget(word);
  const own = analyzer.terms(word);
  if (!budget || !own.length) return [];
  let held = 0;
  for (const term of own) held = Math.max(held, await df(term));
  if (held > (cpLength(word) > SHORT_WORD ? RARE_DF : 0)) return []; // a short word the text holds is meant
  const found = new Map();
  for (const term of own) {
    const space = spaceOf(term, analyzer);
    // not on a short stem of a longer word: one edit reaches other words (ocur: our, cur)
    if (cpLength(term) - cpLength(space) <= SHORT_WORD && SHORT_WORD < cpLength(word)) continue;
    for (const [candidate, edits] of await lexicon.near(term, Math.min(budget, 1))) {
      if (candidate.startsWith(space)) found.set(candidate, Math.min(edits, found.get(candidate) ?? edits));
    }
  }
  const ownSet = new Set(own);
  for (const [near, edits] of await lexicon.nearWords(word, budget)) {
    for (const term of analyzer.terms(near)) {
      if (!ownSet.has(term) && (await lexicon.has(term))) found.set(term, Math.min(edits, found.get(term) ?? edits));
    }
  }
  const frequent = [];
  for (const [term, edits] of found) {
    const d = await df(term);
    if (d > RARE_RATIO * held) frequent.push({ term, edits, d });
  }
  frequent.sort((a, b) => a.edits - b.edits || b.d - a.d || cmp(a.term, b.term));
  return frequent.slice(0, FUZZY_LIMIT).map((x) => x.term);
}

// ---- what the page shows (groundkit.retrieval.display, the page runtime's word marks) ----
const S = "\\t\\n\\x0b\\x0c\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const IN = "(?:[^`\\n]|\\n(?![ \\t]*\\n))";
const IN_NO_TARGET = "(?:[^`<\\n]|\\n(?![ \\t]*\\n))";
const ROLE = `:[${W}.+-]+(?::[${W}.+-]+)*:`;
// Python's ^ and $ under re.MULTILINE: at the ends of the text and next to "\n" only (JS's m flag
// also takes \r, \u2028 and \u2029 for line ends).
const BOL = "(?:(?<![\\s\\S])|(?<=\\n))";
const EOL = "(?=\\n|(?![\\s\\S]))";
const MARKUP = new RegExp(
  [
    `${BOL}[ \\t]*([=\\-~^"'\`#*+:._])\\1{2,}[ \\t]*(?:\\n|${EOL})`,
    `${BOL}[ \\t]*(?:={2,}(?:[ \\t]+={2,})+|-{2,}(?:[ \\t]+-{2,})+)[ \\t]*(?:\\n|${EOL})`,
    `${BOL}[ \\t]*\\.\\.[ \\t]+_[^\\n]*:[ \\t]*(?:\\n|${EOL})`,
    `${BOL}[ \\t]*\\.\\.[ \\t]+(?<directive>[${W}-]+(?::[${W}-]+)*)[ \\t]*::(?:[ \\t]+(?<argument>[^\\n]*?))?[ \\t]*(?:\\n[ \\t]+:[${W}-]+:(?:[ \\t][^\\n]*)?)*(?=\\n|${EOL})`,
    `${BOL}[ \\t]*\\.\\.(?:[ \\t][^\\n]*)?(?=\\n|${EOL})`,
    `${BOL}[ \\t]*#{1,6}[ \\t]+`,
    `\`\`(?<literal>${IN}+?)\`\``,
    `${ROLE}\`~(?:${IN_NO_TARGET}*?\\.)?(?<role_last>(?:[^\`<.\\n]|\\n(?![ \\t]*\\n))+)\``,
    `${ROLE}\`(?<role_text>${IN_NO_TARGET}+?)[${S}]*<[^\`>]*>\``,
    `${ROLE}\`(?<role_whole>${IN_NO_TARGET}+)\``,
    `\`(?<link_text>${IN_NO_TARGET}+?)[${S}]*<[^\`>]*>\`__?`,
    `\`(?<ref>${IN}+?)\`__?(?![${W}\`])`,
    `\\[(?<md_link>[^\\]\\n]+)\\]\\([^)\\n]*\\)`,
    `\\*\\*(?<strong>[^*\\n]+?)\\*\\*`,
    `(?<![${W}*])\\*(?<em>[^*${S}][^*\\n]*?)\\*(?![${W}*])`,
    `\`(?<code>[^\`\\n]+)\``,
    `(?<=[^${S}:]:):(?=[ \\t]*${EOL})`,
    `(?<![^${S}])[ \\t]*::(?=[ \\t]*${EOL})`,
    `\\\\[ \\t]`,
    `\\\\(?<escaped>[^${S}])`,
    "``",
  ].join("|"),
  "gud",
);
const KEPT = ["literal", "role_last", "role_text", "role_whole", "link_text", "ref", "md_link", "strong", "em", "code", "escaped"];
const UNSHOWN = new Set([
  "code", "code-block", "console", "contents", "currentmodule", "default-role", "deprecated",
  "fieldlookup", "figure", "glossary", "highlight", "image", "include", "index", "literalinclude",
  "module", "program", "py:currentmodule", "py:module", "raw", "setting", "sourcecode",
  "templatefilter", "templatetag", "toctree", "versionadded", "versionchanged", "versionremoved",
]);

// plain_text: the text without its markup, and for each kept code point its offset in text.
export function plainText(text) {
  const cps = codePointOffsets(text);
  const out = [];
  const where = [];
  const keep = (from, to) => {
    // UTF-16 [from, to) of text, kept
    out.push(text.slice(from, to));
    for (let i = cps[from]; i < cps[to]; i++) where.push(i);
  };
  let at = 0;
  MARKUP.lastIndex = 0;
  for (const found of text.matchAll(MARKUP)) {
    const start = found.index;
    keep(at, start);
    at = start + found[0].length;
    const groups = found.groups;
    const directive = groups.directive;
    if (directive !== undefined && UNSHOWN.has(directive.toLowerCase())) {
      if (text.startsWith("\n", at)) at += 1;
      continue;
    }
    if (directive !== undefined && groups.argument) {
      const [shown, kept] = plainText(groups.argument);
      out.push(shown);
      const base = cps[found.indices.groups.argument[0]];
      for (const i of kept) where.push(base + i);
      continue;
    }
    const group = KEPT.find((g) => groups[g] !== undefined);
    if (group !== undefined) {
      const [s, e] = found.indices.groups[group];
      keep(s, e);
    }
  }
  keep(at, text.length);
  return [out.join(""), where];
}

export function displaySpans(where, spans) {
  const out = [];
  for (const [start, end] of spans) {
    let first = -1;
    let last = -1;
    where.forEach((source, i) => {
      if (start <= source && source < end) {
        if (first < 0) first = i;
        last = i;
      }
    });
    if (first >= 0) out.push([first, last + 1]);
  }
  return out;
}

// ---- "nothing here" (groundkit.retrieval.lexical_bar, collection_scorer.lexical_bar) ----
// abstention.EVIDENCE_TERMS: bm25's share counts at most this many terms' idf (adr/0071).
const EVIDENCE_TERMS = 4;
// The head's bar: its share where the calibration found it separates (else null: bm25 never
// abstains, but reports its share), and its source; null where the site ships none.
function lexicalBar(raw) {
  if (!raw) return null;
  return { min: raw.separates ? raw.share : null, source: raw.measured?.source === "self" ? "self-calibrated" : "collection" };
}

// abstention.names: the words that name a thing by their capitals (adr/0080): a capital past
// the first character, or a capitalised word that starts no sentence, unless a language
// capitalises its nouns; one character is no name; none where no word begins with a letter
// other than a capital. The words are the tokenizer's (casedWords), a capital isUpperChar.
const NOUNS_CAPITALISED = new Set(["german"]);
const SENTENCE_END = /[.?!¿¡。]/u;
export function names(query, languages) {
  const words = casedWords(query).map(([word, before]) => [[...word], before]);
  if (!words.some(([word]) => isAlpha(word[0]) && !isUpperChar(word[0]))) return [];
  const capitalised = !languages.some((language) => NOUNS_CAPITALISED.has(language));
  const found = [];
  words.forEach(([word, before], at) => {
    const starts = at === 0 || SENTENCE_END.test(before);
    const inner = word.slice(1).some(isUpperChar);
    if (word.length > 1 && (inner || (capitalised && !starts && isUpperChar(word[0])))) found.push(word.join(""));
  });
  return found;
}

// ---- the engine ----
export class FirstAnswer {
  static async open(fetchBytes) {
    const head = await inflateJson(await fetchBytes("index/collection.bin"));
    if (head.format !== 1 || head.embedding || head.word_blocks === undefined || !head.term_blocks || !head.idf) return null;
    if (!Array.isArray(head.question_terms)) return null; // exported before adr/0065: the core answers
    const analyzer = await analyzerFromIdentity(head.analyzer);
    return analyzer === null ? null : new FirstAnswer(fetchBytes, head, analyzer);
  }

  constructor(fetchBytes, head, analyzer) {
    this.index = new StaticIndex(fetchBytes, head);
    this.analyzer = analyzer;
    this.bm25 = new BM25(this.index);
    this.lexicon = new Lexicon(this.index);
    this.framing = new Set(head.question_terms);
    this.bar = lexicalBar(head.lexical_bar);
  }

  // abstention.absent_name: the first name whose every term (a question word's left out) the
  // collection lacks, none of them stood for by an expansion (adr/0080); else null.
  async absentName(query, stood) {
    for (const word of names(query, this.analyzer.languages)) {
      const terms = this.analyzer.terms(word).filter((term) => !this.framing.has(term));
      if (!terms.length || terms.some((term) => stood.has(term))) continue;
      let held = false;
      for (const term of terms) if ((await this.bm25.df(term)) > 0) held = true;
      if (!held) return word;
    }
    return null;
  }

  // abstention.stood_for: the terms of each corrected word, and of each completed word where a
  // completion begins with one of them; a guessed word's left out (adr/0077, adr/0078).
  stoodFor(expanded) {
    const fixed = Object.keys(expanded.fuzzy).filter((word) => !Object.hasOwn(expanded.guessed, word));
    const found = new Set(fixed.flatMap((word) => this.analyzer.terms(word)));
    for (const [word, completions] of Object.entries(expanded.prefix)) {
      if (Object.hasOwn(expanded.guessed, word)) continue; // a guess at another word (adr/0077)
      const own = this.analyzer.terms(word);
      if (completions.some((done) => own.some((term) => done.startsWith(term)))) for (const term of own) found.add(term);
    }
    return found;
  }

  // Execution.lexical_evidence: the best score of the query's content terms (question_words.
  // content_terms: framing terms left out unless they are all it has; a second top-1 search
  // where that leaves some out) over their ideal score, at most 1: the EVIDENCE_TERMS highest
  // idf (adr/0071), added in that order (in query order when there are no more); a term of an
  // expanded word (stood) that the collection lacks leaves the ideal.
  // hits null: scored again (a guessed word's evidence terms, adr/0077).
  async lexicalShare(terms, hits, stood) {
    if (!terms.length) return 0.0;
    const kept = terms.filter((t) => !this.framing.has(t));
    const content = kept.length ? kept : terms;
    const best = content.length !== terms.length || hits === null ? (await this.bm25.topK(content, 1))[0] : hits[0];
    const weights = [];
    for (const term of content) {
      if (stood.has(term) && (await this.bm25.df(term)) === 0) continue;
      weights.push(await this.bm25.termIdf(term));
    }
    if (weights.length > EVIDENCE_TERMS) weights.sort((a, b) => b - a); // else query order
    let ideal = 0.0;
    for (const weight of weights.slice(0, EVIDENCE_TERMS)) ideal += weight;
    return best === undefined || ideal <= 0.0 ? 0.0 : Math.min(1.0, best.score / ideal);
  }

  // The page runtime's search(query, "bm25", topK, ...) with prefix and typos on; null where
  // the core must answer; {error} for a query the core refuses. group > 0: topK pages with up
  // to that many passages each (GroupOptions), page by page, and "groups" their sizes.
  async search(query, topK, { prefix = true, fuzzy = true, group = 0 } = {}) {
    if (!knownToPython(query) || !tokens(query).length || cpLength(query) > 4096) return null;
    let expanded;
    try {
      expanded = await expandQuery(query, this.analyzer, this.lexicon, this.bm25, { prefix, fuzzy });
    } catch (error) {
      if (error instanceof QueryRefused) return { error: error.message };
      throw error;
    }
    const scored = contentTerms(expanded.terms, this.framing);
    let hits = await this.bm25.topK(scored, group ? groupDepth(topK) : topK);
    let nothingHere = null; // Execution._bm25_evidence, where the site ships a bar (adr/0069)
    if (this.bar !== null) {
      const evidence = evidenceTerms(scored, expanded);
      const guessed = Object.keys(expanded.guessed).length > 0; // its evidence is scored again
      const stood = this.stoodFor(expanded);
      const share = await this.lexicalShare(evidence, guessed ? null : hits, stood);
      let abstained = this.bar.min !== null && share < this.bar.min; // as the core: 0 never abstains
      nothingHere = { abstained, lexical_share: share, lexical_bar: { min_lexical_share: this.bar.min, source: this.bar.source } };
      if (this.bar.min && !abstained) {
        const name = await this.absentName(query, stood); // a name the collection lacks (adr/0080)
        if (name !== null) Object.assign(nothingHere, { abstained: (abstained = true), absent_name: name });
      }
      if (abstained) hits = [];
    }
    let sizes = null;
    if (group) [hits, sizes] = this.index.grouped(hits, topK, group);
    const chunks = await Promise.all(hits.map((hit) => this.index.chunk(hit.key)));
    const wanted = new Set(this.analyzer.terms(query));
    const marked = new Set(); // the core's highlights (ExpandedQuery.matched_terms)
    for (const t of scored) for (const m of blendMembers(t)?.[1] ?? [t]) marked.add(m);
    const expansions = {};
    for (const kind of ["prefix", "fuzzy"]) {
      if (Object.keys(expanded[kind]).length) expansions[kind] = Object.fromEntries(Object.entries(expanded[kind]));
      for (const terms of Object.values(expanded[kind])) for (const t of terms) wanted.add(t);
    }
    const results = hits.map((hit, i) => {
      const c = chunks[i];
      const marks = highlightSpans(this.analyzer, marked, c.text);
      const [display, where] = plainText(c.text);
      const headings = c.metadata.heading_path || [];
      return {
        rank: i + 1,
        score: hit.score,
        chunk_id: c.chunkId,
        source: c.document[1],
        start_offset: c.start,
        end_offset: c.end,
        start_line: c.startLine,
        end_line: c.endLine,
        text: c.text,
        heading: headings.map((h) => plainText(h)[0]),
        marks,
        display,
        display_marks: displaySpans(where, marks),
        extracted: c.document[8] !== null && c.document[8] !== undefined,
      };
    });
    const answer = { results, expansions, terms: [...wanted].sort(cmp), stage: "bm25" };
    if (sizes !== null) answer.groups = sizes;
    if (nothingHere !== null) Object.assign(answer, nothingHere);
    return answer;
  }
}
