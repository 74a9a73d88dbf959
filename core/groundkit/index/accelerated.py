"""The numpy path of BM25 scoring: the same operations as the pure-Python path, vectorised.

Only used when numpy is importable (it is imported on construction, so this module itself
imports with the standard library alone). For each query term, in the same sorted order as the
Python path, it adds ``weight * tf / (tf + norm)`` into a dense score vector: each chunk sees the
same float64 operations in the same order, so the scores are bit-identical. It then hands only
the chunks that can reach the top k (all those scoring at least the k-th best) to the shared
exact selection with its content-derived tie-break.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import Any

from groundkit.index.postings import PostingsCache

__all__ = ["NumpyScorer"]


class NumpyScorer:
    """Dense-vector BM25 accumulation over cached postings."""

    def __init__(self, norms: array[float], postings: PostingsCache) -> None:
        import numpy

        self._np: Any = numpy
        self._norms = numpy.frombuffer(norms, dtype=numpy.float64)
        self._postings = postings
        self._cache: dict[str, tuple[Any, Any, Any]] = {}

    def _arrays(self, term: str) -> tuple[Any, Any, Any]:
        """(keys, tf, tf + norm) of ``term`` as numpy arrays, computed once per snapshot."""
        np = self._np
        found = self._cache.get(term)
        if found is None:
            postings = self._postings.get(term)
            keys = np.frombuffer(postings.keys, dtype=np.int64)
            tfs = np.frombuffer(postings.tfs, dtype=np.uint32).astype(np.float64)
            found = (keys, tfs, tfs + self._norms[keys])
            self._cache[term] = found
        return found

    def shortlist(
        self, weights: Sequence[tuple[str, float]], k: int, score_threshold: float | None
    ) -> tuple[dict[int, float], int]:
        """Chunks that may be in the top ``k`` with their scores, and the number matched."""
        if not weights:
            return {}, 0
        np = self._np
        scores = np.zeros(len(self._norms), dtype=np.float64)
        for term, weight in weights:
            keys, tfs, denominators = self._arrays(term)
            scores[keys] += weight * tfs / denominators
        matched = np.flatnonzero(scores)
        candidates = int(matched.size)
        values = scores[matched]
        if score_threshold is not None:
            keep = values >= score_threshold
            matched, values = matched[keep], values[keep]
        if values.size > k:
            kth = np.partition(values, values.size - k)[values.size - k]
            keep = values >= kth
            matched, values = matched[keep], values[keep]
        return dict(zip(matched.tolist(), values.tolist(), strict=True)), candidates
