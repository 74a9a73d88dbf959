"""Bit-parallel BM25 accumulation for small collections, for the pure-Python path.

On a small collection a query's postings cover much of it (a Cranfield query: 2,067 postings
over 1,400 chunks), and adding them one at a time in a Python loop is most of a query's cost.
Here each term's scores are rounded to ``FRACTION_BITS``-bit fixed point and packed into one
Python int, a 32-bit field per chunk slot; adding a query's ints adds every field at once, in
C. No field carries into the next: a query is packed only when its largest possible total
stays under 2**30. The rounded totals only *select*: every chunk that could reach the k-th
best exact score is re-scored in the canonical term order, so what comes back is the exact
scores of a superset of the top k, as exhaustive scoring has them
(adr/0016-bm25-packed-small-collections.md).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from typing import NamedTuple

from groundkit.index.terms import QueryTerm, TermScoresOf

__all__ = ["FRACTION_BITS", "PackedScorer", "packing_available"]

FRACTION_BITS = 18
"""Fixed-point resolution of packed term scores: 2**-18, about 4e-6."""
CACHE_BYTES = 1 << 26
"""Packed terms held (4 bytes a chunk slot, about 100 a posting) before the cache starts over."""
_TOTAL_LIMIT = 1 << 30
"""A field's total stays under this, so bit 31 is free for the threshold test and no field
ever carries into its neighbour."""
_SIGN = 1 << 31
_SAMPLE_STRIDE = 8
"""The k-th best total is estimated from every 8th field."""
_FIELD = array("I")


def packing_available() -> bool:
    """Whether ``array('I')`` holds the 4-byte fields the packing needs on this platform."""
    return _FIELD.itemsize == 4


class PackedTerm(NamedTuple):
    """One term, packed: its fixed-point scores, their maximum, and exact scores by chunk."""

    fields: int
    top: int
    exact: dict[int, float]


class PackedScorer:
    """Finds the chunks that can reach a query's top k by big-int addition, then scores them."""

    def __init__(self, slots: int, term_scores: TermScoresOf) -> None:
        self._bytes = 4 * slots
        self._term_scores = term_scores
        self._ones = int.from_bytes(array("I", [1]) * slots, sys.byteorder)
        self._signs = self._ones * _SIGN
        self._cache: dict[str, PackedTerm | None] = {}
        self._held = 0

    def packed(self, term: str) -> PackedTerm | None:
        """``term`` packed, or None when one of its scores would not fit a field."""
        if term in self._cache:
            return self._cache[term]
        keys, values, top = self._term_scores(term)
        scale = float(1 << FRACTION_BITS)
        found = None
        if top * scale < _TOTAL_LIMIT:
            fields = array("I", bytes(self._bytes))
            for key, value in zip(keys, values, strict=True):
                fields[key] = round(value * scale)
            exact = dict(zip(keys, values, strict=True))
            found = PackedTerm(int.from_bytes(fields, sys.byteorder), round(top * scale), exact)
        cost = self._bytes + 100 * len(keys)
        if self._held + cost > CACHE_BYTES:
            self._cache.clear()
            self._held = 0
        self._cache[term] = found
        self._held += cost
        return found

    def candidates(self, query: Sequence[QueryTerm], k: int) -> dict[int, float] | None:
        """Exact scores (canonical order) of a set of chunks holding the top ``k`` and every
        chunk tied with the k-th; None where packing cannot decide (the caller then scores
        exhaustively).

        A chunk's packed total differs from 2**FRACTION_BITS times its exact score by at most
        half a unit per query-term repeat, plus under one unit of float rounding. So once at
        least k totals reach a guess G, the k-th best exact score is at least that of a total
        of G minus that error, and no chunk of the top k (or tied with it) has a total under
        G - (repeats + 2).
        """
        if k <= 0:
            return None
        terms = []
        total = bound = 0
        for query_term in query:
            term = self.packed(query_term.term)
            if term is None:
                return None
            terms.append(term)
            qtf = query_term.qtf
            total += term.fields if qtf == 1 else qtf * term.fields
            bound += qtf * term.top
        if bound >= _TOTAL_LIMIT:
            return None
        low = self._floor(total, k, sum(query_term.qtf for query_term in query) + 2)
        if low is None:
            return None
        return _rescored(self._reaching(total, low), query, terms)

    def _floor(self, total: int, k: int, margin: int) -> int | None:
        """A total that every chunk of the top k reaches (at least 1), or None."""
        fields = array("I")
        fields.frombytes(total.to_bytes(self._bytes, sys.byteorder))
        sample = sorted(fields[::_SAMPLE_STRIDE], reverse=True)
        at = max(0, 2 * k // _SAMPLE_STRIDE - 1)  # about 2k totals reach sample[at]
        while at < len(sample):
            guess = sample[at]
            if guess <= margin:
                return None
            if self._reached(total, guess).bit_count() >= k:
                return guess - margin
            at = 2 * at + 1
        return None

    def _reached(self, total: int, low: int) -> int:
        """Bit 31 of each field set where the field's total is at least ``low``."""
        return (total + self._ones * (_SIGN - low)) & self._signs

    def _reaching(self, total: int, low: int) -> list[int]:
        """The slots whose total is at least ``low``, ascending."""
        flags = self._reached(total, low).to_bytes(self._bytes, sys.byteorder)
        slots = []
        at = flags.find(0x80)  # the byte of bit 31: only a set flag makes it non-zero
        while at >= 0:
            slots.append(at >> 2)
            at = flags.find(0x80, at + 1)
        return slots


def _rescored(
    slots: list[int], query: Sequence[QueryTerm], terms: Sequence[PackedTerm]
) -> dict[int, float]:
    """Exact scores of ``slots``, each term's ``qtf * term score`` added in canonical order.

    Starting from 0.0 and adding 0.0 for a term a chunk lacks changes no sum, so these equal
    the exhaustive path's scores bit for bit.
    """
    scores = dict.fromkeys(slots, 0.0)
    for query_term, term in zip(query, terms, strict=True):
        get = term.exact.get
        qtf = query_term.qtf
        if qtf == 1:
            for slot in slots:
                scores[slot] += get(slot, 0.0)
        else:
            for slot in slots:
                scores[slot] += qtf * get(slot, 0.0)
    return scores
