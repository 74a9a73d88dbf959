// The Porter stemmer as the core's groundkit.analysis.porter.stem computes it by default (Lucene's
// PorterStemmer: Martin Porter's reference code), for the page's JS query path. A copy of the
// core, held to it word for word by tests/web/test_first_answer.py on the official vocabulary.
const VOWELS = new Set(["a", "e", "i", "o", "u"]);

function pattern(word) {
  let out = "";
  let previousConsonant = false;
  let index = 0;
  for (const ch of word) {
    let consonant;
    if (VOWELS.has(ch)) consonant = false;
    else if (ch === "y") consonant = index === 0 || !previousConsonant;
    else consonant = true;
    out += consonant ? "c" : "v";
    previousConsonant = consonant;
    index += 1;
  }
  return out;
}

const measure = (word) => (pattern(word).match(/vc/g) || []).length;
const hasVowel = (word) => pattern(word).includes("v");
const endsDoubleConsonant = (word) =>
  word.length >= 2 && word.at(-1) === word.at(-2) && pattern(word).at(-1) === "c";
const endsCvc = (word) => word.length >= 3 && !"wxy".includes(word.at(-1)) && pattern(word).endsWith("cvc");

const STEP2 = {
  a: [["ational", "ate"], ["tional", "tion"]],
  c: [["enci", "ence"], ["anci", "ance"]],
  e: [["izer", "ize"]],
  l: [["bli", "ble"], ["alli", "al"], ["entli", "ent"], ["eli", "e"], ["ousli", "ous"]],
  o: [["ization", "ize"], ["ation", "ate"], ["ator", "ate"]],
  s: [["alism", "al"], ["iveness", "ive"], ["fulness", "ful"], ["ousness", "ous"]],
  t: [["aliti", "al"], ["iviti", "ive"], ["biliti", "ble"]],
  g: [["logi", "log"]],
};
const STEP3 = {
  e: [["icate", "ic"], ["ative", ""], ["alize", "al"]],
  i: [["iciti", "ic"]],
  l: [["ical", "ic"], ["ful", ""]],
  s: [["ness", ""]],
};
const STEP4 = {
  a: ["al"], c: ["ance", "ence"], e: ["er"], i: ["ic"], l: ["able", "ible"],
  n: ["ant", "ement", "ment", "ent"], o: ["ion", "ou"], s: ["ism"], t: ["ate", "iti"],
  u: ["ous"], v: ["ive"], z: ["ize"],
};

function step1ab(word) {
  if (word.at(-1) === "s") {
    if (word.endsWith("sses") || word.endsWith("ies")) word = word.slice(0, -2);
    else if (!word.endsWith("ss")) word = word.slice(0, -1);
  }
  if (word.endsWith("eed")) {
    if (measure(word.slice(0, -3)) > 0) word = word.slice(0, -1);
    return word;
  }
  let base;
  if (word.endsWith("ed")) base = word.slice(0, -2);
  else if (word.endsWith("ing")) base = word.slice(0, -3);
  else return word;
  if (!hasVowel(base)) return word;
  if (base.endsWith("at") || base.endsWith("bl") || base.endsWith("iz")) return base + "e";
  if (endsDoubleConsonant(base)) return "lsz".includes(base.at(-1)) ? base : base.slice(0, -1);
  if (measure(base) === 1 && endsCvc(base)) return base + "e";
  return base;
}

function step1c(word) {
  if (word.at(-1) === "y" && hasVowel(word.slice(0, -1))) return word.slice(0, -1) + "i";
  return word;
}

function replace(word, rules, key) {
  for (const [suffix, replacement] of rules[key] || []) {
    if (word.endsWith(suffix)) {
      const base = word.slice(0, -suffix.length);
      return measure(base) > 0 ? base + replacement : word;
    }
  }
  return word;
}

function step4(word) {
  for (const suffix of STEP4[word.at(-2)] || []) {
    if (word.endsWith(suffix)) {
      const base = word.slice(0, -suffix.length);
      if (suffix === "ion" && !(base && "st".includes(base.at(-1)))) continue;
      return measure(base) > 1 ? base : word;
    }
  }
  return word;
}

function step5(word) {
  if (word.at(-1) === "e") {
    const m = measure(word);
    if (m > 1 || (m === 1 && !endsCvc(word.slice(0, -1)))) word = word.slice(0, -1);
  }
  if (word.at(-1) === "l" && endsDoubleConsonant(word) && measure(word) > 1) word = word.slice(0, -1);
  return word;
}

// Only ever called on ASCII words (the core leaves a non-ASCII word unstemmed), so UTF-16
// indexing is code-point indexing here.
export function stem(word) {
  if (word.length <= 2) return word;
  word = step1ab(word);
  if (word.length <= 1) return word;
  word = step1c(word);
  word = replace(word, STEP2, word.at(-2));
  word = replace(word, STEP3, word.at(-1));
  word = step4(word);
  return step5(word);
}
