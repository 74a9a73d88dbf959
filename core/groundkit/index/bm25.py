"""Lucene BM25 over a snapshot's postings.

score(q, d) = sum over query terms t of qtf(t) * idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))
with idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), as Lucene's BM25Similarity (8.0 and later,
which dropped the constant (k1 + 1) factor). Opening costs one pass over chunk lengths, never
a re-tokenization.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Sequence

from groundkit.config import BM25Params
from groundkit.store.base import CollectionReader

__all__ = ["BM25Index"]


class BM25Index:
    """Scores query terms against one collection snapshot."""

    def __init__(self, reader: CollectionReader, params: BM25Params | None = None) -> None:
        self._reader = reader
        self.params = params or BM25Params()
        self._n = reader.chunk_count
        avgdl = reader.total_length / self._n if self._n else 1.0
        k1, b = self.params.k1, self.params.b
        lengths = list(reader.chunk_lengths())
        size = max((key for key, _ in lengths), default=0) + 1
        norms = array("d", bytes(8 * size))
        for key, length in lengths:
            norms[key] = k1 * (1.0 - b + b * length / avgdl) if avgdl else k1
        self._norms = norms

    @property
    def chunk_count(self) -> int:
        return self._n

    def idf(self, df: int) -> float:
        return math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))

    def score(self, terms: Sequence[str]) -> dict[int, float]:
        """BM25 score of every chunk matching at least one of ``terms`` (repeats count)."""
        scores: dict[int, float] = {}
        norms = self._norms
        get = scores.get
        counts = Counter(terms)
        for term in sorted(counts):  # a fixed summation order keeps floats identical
            postings = self._reader.postings(term)
            if not postings:
                continue
            weight = counts[term] * self.idf(len(postings))
            for key, tf in postings:
                scores[key] = get(key, 0.0) + weight * tf / (tf + norms[key])
        return scores
