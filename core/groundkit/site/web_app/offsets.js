// groundkit citations count code points (Python str indices); JavaScript strings are UTF-16,
// where a character outside the Basic Multilingual Plane (most emoji, 𝔘, 𠀀) takes two units.
// These helpers convert between the two, and decode a source file exactly as Python does.

/** UTF-16 index of code point `cp` in `text` (cp may equal the length in code points). */
export function codePointToUtf16(text, cp, from = { cp: 0, unit: 0 }) {
  if (!Number.isInteger(cp) || cp < from.cp) throw new RangeError(`bad code-point offset ${cp}`);
  let unit = from.unit;
  for (let c = from.cp; c < cp; c++) {
    if (unit >= text.length) {
      throw new RangeError(`code-point offset ${cp} lies past the end of the text (${c} code points)`);
    }
    unit += text.codePointAt(unit) > 0xffff ? 2 : 1;
  }
  return unit;
}

/** [start, end) in code points -> [start, end) in UTF-16 units, in one walk. */
export function spanToUtf16(text, start, end) {
  if (end < start) throw new RangeError(`span ${start}..${end} is reversed`);
  const s = codePointToUtf16(text, start);
  return [s, codePointToUtf16(text, end, { cp: start, unit: s })];
}

/** Code-point index of UTF-16 index `unit` (the inverse; `unit` must not split a pair). */
export function utf16ToCodePoint(text, unit) {
  let cp = 0;
  for (let u = 0; u < unit; cp++) u += text.codePointAt(u) > 0xffff ? 2 : 1;
  return cp;
}

/** Number of code points in `text` (Python's len()). */
export const codePointLength = (text) => utf16ToCodePoint(text, text.length);

/**
 * Bytes -> string as groundkit reads a source: strict UTF-8, a BOM kept as U+FEFF (Python's
 * "utf-8" codec keeps it; TextDecoder drops it unless ignoreBOM), line endings untouched.
 */
export function decodeSource(bytes) {
  return new TextDecoder("utf-8", { fatal: true, ignoreBOM: true }).decode(bytes);
}
