"""The ``python-packed`` path: bit-parallel BM25 addition for small collections.

Each term's scores are rounded to fixed point and packed into one Python int, a 32-bit field
per chunk slot, so adding a query's terms adds every chunk's total at once, in C. The rounded
totals only *select*: every chunk within a proven margin of the k-th best total is re-scored
exactly in the canonical term order, so the result is bit-identical to exhaustive scoring
(the bounds and the cost rule: adr/0016-bm25-packed-small-collections.md).
"""

from __future__ import annotations

import sys
from array import array
from collections.abc import Sequence
from typing import NamedTuple

from groundkit.index.cache import BoundedCache
from groundkit.index.lexical_plan import LexicalPlan
from groundkit.index.paths import LexicalHits, LexicalQuery, hits_of
from groundkit.index.terms import QueryTerm, TermScoresOf

__all__ = ["PackedScorer", "packing_available"]

_TOTAL_LIMIT = 1 << 30
"""A field's total stays under this: bit 31 is free for the threshold test, no field carries."""
_SIGN = 1 << 31
_FIELD = array("I")


def packing_available() -> bool:
    """Whether ``array('I')`` holds the 4-byte fields the packing needs on this platform."""
    return _FIELD.itemsize == 4


class PackedTerm(NamedTuple):
    """One term, packed: its fixed-point scores, their maximum, and exact scores by chunk."""

    fields: int
    top: int
    exact: dict[int, float]


_UNPACKABLE = PackedTerm(0, -1, {})
"""Kept for a term whose scores would not fit a field."""


class PackedScorer:
    """Finds the chunks that can reach a query's top k by big-int addition, then scores them;
    a ``ScoringPath`` that declines where fixed point cannot decide."""

    name = "python-packed"

    def __init__(self, slots: int, term_scores: TermScoresOf, plan: LexicalPlan) -> None:
        self._bytes = 4 * slots
        self._term_scores = term_scores
        self._plan = plan
        self._fraction_bits = plan.packed_fraction_bits
        self._stride = plan.packed_sample_stride
        self._ones = int.from_bytes(array("I", [1]) * slots, sys.byteorder)
        self._signs = self._ones * _SIGN
        self._cache: BoundedCache[str, PackedTerm] = BoundedCache(plan.packed_cache_bytes)

    def top_k(self, query: LexicalQuery) -> LexicalHits | None:
        found = self.candidates(query.terms, query.k)
        return None if found is None else hits_of(found, query, self.name, self._plan)

    def packed(self, term: str) -> PackedTerm | None:
        """``term`` packed, or None when one of its scores would not fit a field."""
        found = self._cache.get(term)
        if found is not None:
            return None if found is _UNPACKABLE else found
        keys, values, top = self._term_scores(term)
        scale = float(1 << self._fraction_bits)
        found = _UNPACKABLE
        if top * scale < _TOTAL_LIMIT:
            fields = array("I", bytes(self._bytes))
            for key, value in zip(keys, values, strict=True):
                fields[key] = round(value * scale)
            exact = dict(zip(keys, values, strict=True))
            found = PackedTerm(int.from_bytes(fields, sys.byteorder), round(top * scale), exact)
        self._cache.put(term, found, self._bytes + 100 * len(keys))
        return None if found is _UNPACKABLE else found

    def candidates(self, query: Sequence[QueryTerm], k: int) -> dict[int, float] | None:
        """Exact scores (canonical order) of a set of chunks holding the top ``k`` and every
        chunk tied with the k-th; None where packing cannot decide. Chunks are kept down to
        (repeats + 2) units under a total that k chunks reach (adr/0016)."""
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
        sample = sorted(fields[:: self._stride], reverse=True)
        at = max(0, 2 * k // self._stride - 1)  # about 2k totals reach sample[at]
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
    """Exact scores of ``slots``, each term's ``qtf * term score`` added in canonical order
    from 0.0 (adding 0.0 for a term a chunk lacks changes no sum)."""
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
