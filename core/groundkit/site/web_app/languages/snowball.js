// The runtime of the generated Snowball stemmers (languages/<algorithm>.js, made by
// tests/data/js/make_stemmers.py): snowballstemmer's basestemmer.py, line for line, over an
// array of code points (one string each), so that every index and length counts code points
// as Python's str does (a JS string counts UTF-16 units: an astral letter would count twice).
// Snowball is BSD-3-Clause (see LICENSE-snowball.txt).

const codes = (s) => Array.from(s, (c) => c.codePointAt(0));

/** Among(s, substring_i, result, method): one row of a Snowball lookup table. */
export const among = (s, substringI, result, method = null) => ({
  s: codes(s),
  substringI,
  result,
  method,
});

export class BaseStemmer {
  constructor() {
    this.setCurrent("");
  }

  setCurrent(value) {
    this.current = Array.from(value);
    this.cursor = 0;
    this.limit = this.current.length;
    this.limit_backward = 0;
    this.bra = this.cursor;
    this.ket = this.limit;
  }

  in_grouping(s) {
    if (this.cursor >= this.limit) return false;
    if (!s.has(this.current[this.cursor])) return false;
    this.cursor += 1;
    return true;
  }

  go_in_grouping(s) {
    while (this.cursor < this.limit) {
      if (!s.has(this.current[this.cursor])) return true;
      this.cursor += 1;
    }
    return false;
  }

  in_grouping_b(s) {
    if (this.cursor <= this.limit_backward) return false;
    if (!s.has(this.current[this.cursor - 1])) return false;
    this.cursor -= 1;
    return true;
  }

  go_in_grouping_b(s) {
    while (this.cursor > this.limit_backward) {
      if (!s.has(this.current[this.cursor - 1])) return true;
      this.cursor -= 1;
    }
    return false;
  }

  out_grouping(s) {
    if (this.cursor >= this.limit) return false;
    if (!s.has(this.current[this.cursor])) {
      this.cursor += 1;
      return true;
    }
    return false;
  }

  go_out_grouping(s) {
    while (this.cursor < this.limit) {
      if (s.has(this.current[this.cursor])) return true;
      this.cursor += 1;
    }
    return false;
  }

  out_grouping_b(s) {
    if (this.cursor <= this.limit_backward) return false;
    if (!s.has(this.current[this.cursor - 1])) {
      this.cursor -= 1;
      return true;
    }
    return false;
  }

  go_out_grouping_b(s) {
    while (this.cursor > this.limit_backward) {
      if (s.has(this.current[this.cursor - 1])) return true;
      this.cursor -= 1;
    }
    return false;
  }

  // Python's current.startswith(s, cursor, limit)
  eq_s(s) {
    const want = Array.from(s);
    if (this.cursor + want.length > this.limit) return false;
    for (let i = 0; i < want.length; i++) if (this.current[this.cursor + i] !== want[i]) return false;
    this.cursor += want.length;
    return true;
  }

  // Python's current.endswith(s, limit_backward, cursor)
  eq_s_b(s) {
    const want = Array.from(s);
    if (this.cursor - want.length < this.limit_backward) return false;
    const from = this.cursor - want.length;
    for (let i = 0; i < want.length; i++) if (this.current[from + i] !== want[i]) return false;
    this.cursor -= want.length;
    return true;
  }

  find_among(v) {
    let i = 0;
    let j = v.length;
    const c = this.cursor;
    const l = this.limit;
    let commonI = 0;
    let commonJ = 0;
    let firstKeyInspected = false;
    while (true) {
      const k = i + ((j - i) >> 1);
      let diff = 0;
      let common = Math.min(commonI, commonJ);
      const w = v[k];
      for (let i2 = common; i2 < w.s.length; i2++) {
        if (c + common === l) {
          diff = -1;
          break;
        }
        diff = this.current[c + common].codePointAt(0) - w.s[i2];
        if (diff !== 0) break;
        common += 1;
      }
      if (diff < 0) {
        j = k;
        commonJ = common;
      } else {
        i = k;
        commonI = common;
      }
      if (j - i <= 1) {
        if (i > 0) break;
        if (j === i) break;
        if (firstKeyInspected) break;
        firstKeyInspected = true;
      }
    }
    while (true) {
      const w = v[i];
      if (commonI >= w.s.length) {
        this.cursor = c + w.s.length;
        if (w.method === null) return w.result;
        if (w.method(this)) {
          this.cursor = c + w.s.length;
          return w.result;
        }
      }
      i = w.substringI;
      if (i < 0) return 0;
    }
  }

  find_among_b(v) {
    let i = 0;
    let j = v.length;
    const c = this.cursor;
    const lb = this.limit_backward;
    let commonI = 0;
    let commonJ = 0;
    let firstKeyInspected = false;
    while (true) {
      const k = i + ((j - i) >> 1);
      let diff = 0;
      let common = Math.min(commonI, commonJ);
      const w = v[k];
      for (let i2 = w.s.length - 1 - common; i2 >= 0; i2--) {
        if (c - common === lb) {
          diff = -1;
          break;
        }
        diff = this.current[c - 1 - common].codePointAt(0) - w.s[i2];
        if (diff !== 0) break;
        common += 1;
      }
      if (diff < 0) {
        j = k;
        commonJ = common;
      } else {
        i = k;
        commonI = common;
      }
      if (j - i <= 1) {
        if (i > 0) break;
        if (j === i) break;
        if (firstKeyInspected) break;
        firstKeyInspected = true;
      }
    }
    while (true) {
      const w = v[i];
      if (commonI >= w.s.length) {
        this.cursor = c - w.s.length;
        if (w.method === null) return w.result;
        if (w.method(this)) {
          this.cursor = c - w.s.length;
          return w.result;
        }
      }
      i = w.substringI;
      if (i < 0) return 0;
    }
  }

  replace_s(cBra, cKet, s) {
    const chars = Array.from(s);
    const adjustment = chars.length - (cKet - cBra);
    this.current = [...this.current.slice(0, cBra), ...chars, ...this.current.slice(cKet)];
    this.limit += adjustment;
    if (this.cursor >= cKet) this.cursor += adjustment;
    else if (this.cursor > cBra) this.cursor = cBra;
    return adjustment;
  }

  check() {
    if (!(this.bra >= 0 && this.bra <= this.ket && this.ket <= this.limit && this.limit <= this.current.length)) {
      throw new Error("snowball: bad slice"); // Python's assert in slice_from, slice_to
    }
  }

  slice_from(s) {
    this.check();
    this.replace_s(this.bra, this.ket, s);
    this.ket = this.bra + Array.from(s).length;
  }

  slice_del() {
    return this.slice_from("");
  }

  insert(cBra, cKet, s) {
    const adjustment = this.replace_s(cBra, cKet, s);
    if (cBra <= this.bra) this.bra += adjustment;
    if (cBra <= this.ket) this.ket += adjustment;
  }

  slice_to() {
    this.check();
    return this.current.slice(this.bra, this.ket).join("");
  }

  assign_to() {
    return this.current.slice(0, this.limit).join("");
  }

  stemWord(word) {
    this.setCurrent(word);
    this._stem();
    return this.current.join("");
  }
}
