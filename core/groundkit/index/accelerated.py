"""The numpy path of BM25 scoring: the same operations as the pure-Python path, vectorised.

Only used when numpy is importable (it is imported on construction, so this module itself
imports with the standard library alone). For each query term, in the same sorted order as the
Python path, it adds ``weight * impact`` (the index's cached ``tf / (tf + norm)``) into a dense
score vector: each chunk sees the same float64 operations in the same order, so the scores are
bit-identical. It then hands only
the chunks that can reach the top k (all those scoring at least the k-th best) to the shared
exact selection with its content-derived tie-break.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["NumpyScorer"]

_SPARSE_RATIO = 4
"""Score sparsely when the query's postings number under a quarter of the chunks."""


class NumpyScorer:
    """Dense-vector BM25 accumulation over the index's cached per-term impacts."""

    def __init__(
        self, size: int, impacts: Callable[[str], tuple[array[int], array[float]]]
    ) -> None:
        import numpy

        self._np: Any = numpy
        self._size = size
        self._impacts = impacts
        self._cache: dict[str, tuple[Any, Any]] = {}

    def _arrays(self, term: str) -> tuple[Any, Any]:
        """(keys, impacts) of ``term`` as numpy views of the index's arrays (no copy)."""
        found = self._cache.get(term)
        if found is None:
            keys, impacts = self._impacts(term)
            np = self._np
            found = (np.frombuffer(keys, dtype=np.int64), np.frombuffer(impacts, dtype=np.float64))
            self._cache[term] = found
        return found

    def shortlist(
        self, weights: Sequence[tuple[str, float]], k: int, score_threshold: float | None
    ) -> list[tuple[int, float]]:
        """The chunks that may be in the top ``k``, best score first.

        Everything scoring at least the k-th best score is kept, so ties at the cut survive.
        """
        if not weights:
            return []
        np = self._np
        lists = [self._arrays(term) for term, _ in weights]
        postings = sum(len(keys) for keys, _ in lists)
        if postings * _SPARSE_RATIO < self._size:
            matched, values = self._sparse(weights, lists)
        else:
            scores = np.zeros(self._size, dtype=np.float64)
            for (_, weight), (keys, impacts) in zip(weights, lists, strict=True):
                scores[keys] += weight * impacts
            matched = np.flatnonzero(scores)
            values = scores[matched]
        if score_threshold is not None:
            keep = values >= score_threshold
            matched, values = matched[keep], values[keep]
        if values.size > k:
            kth = np.partition(values, values.size - k)[values.size - k]
            keep = values >= kth
            matched, values = matched[keep], values[keep]
        order = np.argsort(-values, kind="stable")
        pairs = zip(matched[order].tolist(), values[order].tolist(), strict=True)
        return list(pairs)

    def _sparse(
        self, weights: Sequence[tuple[str, float]], lists: Sequence[tuple[Any, Any]]
    ) -> tuple[Any, Any]:
        """Scores of the matched chunks only, for queries touching few of the corpus's chunks.

        ``bincount`` adds each chunk's contributions in input order, which is sorted term
        order, starting from 0.0: the same additions as the dense and pure-Python paths.
        """
        np = self._np
        keys = np.concatenate([k for k, _ in lists])
        contributions = np.concatenate(
            [w * v for (_, w), (_, v) in zip(weights, lists, strict=True)]
        )
        matched, where = np.unique(keys, return_inverse=True)
        return matched, np.bincount(where, weights=contributions, minlength=matched.size)
