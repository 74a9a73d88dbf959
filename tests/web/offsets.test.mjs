// Unit tests of the app's code-point <-> UTF-16 conversion (node --test tests/web/).
// groundkit offsets count code points, as Python's str does; JavaScript strings count UTF-16
// units, where an astral character (emoji, mathematical letters, CJK extension B) takes two.
import assert from "node:assert/strict";
import test from "node:test";
import {
  codePointLength, codePointToUtf16, decodeSource, spanToUtf16, utf16ToCodePoint,
} from "../../core/groundkit/site/web_app/offsets.js";

// The same text as Python sees it: a list of code points; slice there, compare in JS.
const pySlice = (text, start, end) => [...text].slice(start, end).join("");

test("BMP-only text: code points and UTF-16 units agree", () => {
  const text = "café – naïve ﬁ";
  for (let i = 0; i <= [...text].length; i++) assert.equal(codePointToUtf16(text, i), i);
});

test("astral characters before, inside and after the span", () => {
  const text = "💧 Notice 🔧\n𝔘𝔫𝔦 quokka 🦘 and 𠀀 numbat 👩‍👩‍👧 end";
  const n = codePointLength(text);
  assert.equal(n, [...text].length);
  for (let start = 0; start <= n; start++) {
    for (let end = start; end <= n; end++) {
      const [s, e] = spanToUtf16(text, start, end);
      assert.equal(text.slice(s, e), pySlice(text, start, end), `span ${start}..${end}`);
      assert.equal(utf16ToCodePoint(text, s), start);
      assert.equal(utf16ToCodePoint(text, e), end);
    }
  }
});

test("a span starting right after a surrogate pair", () => {
  const text = "🦘x";
  assert.deepEqual(spanToUtf16(text, 1, 2), [2, 3]);
  assert.equal(text.slice(2, 3), "x");
});

test("offsets past the end or reversed are refused", () => {
  assert.throws(() => codePointToUtf16("ab🦘", 4), RangeError);
  assert.throws(() => spanToUtf16("abc", 2, 1), RangeError);
  assert.throws(() => codePointToUtf16("abc", -1), RangeError);
  assert.throws(() => codePointToUtf16("abc", 1.5), RangeError);
});

test("decodeSource reads as Python's strict utf-8: BOM kept, CRLF kept, invalid refused", () => {
  const bom = new Uint8Array([0xef, 0xbb, 0xbf, 0x61, 0x0d, 0x0a, 0xf0, 0x9f, 0xa6, 0x98]);
  const text = decodeSource(bom);
  assert.equal(text, "\ufeffa\r\n🦘");
  assert.equal(codePointLength(text), 5); // len() in Python
  assert.throws(() => decodeSource(new Uint8Array([0x61, 0xff])), TypeError);
});
