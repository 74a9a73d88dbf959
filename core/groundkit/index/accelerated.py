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
        scores = np.zeros(self._size, dtype=np.float64)
        for term, weight in weights:
            keys, impacts = self._arrays(term)
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
