"""The numpy prefilter of the exact vector store: which keys can be in the exact top k.

One float32 matrix product scores every vector approximately; the standard bound on a
floating-point dot product (|error| <= n * u * sum |x_i y_i|, u = 2**-24 for float32, and
sum |x_i y_i| <= |x| |y|) gives each approximate score an interval that holds the exact one.
A key whose upper bound is below the k-th best lower bound cannot be among the k best, so only
the rest are scored exactly (``math.fsum``) by the store: same keys, same scores, same order as
scoring every vector in Python (adr/0029). Any non-finite product (a float32 overflow) returns
None, and the store scores everything.
"""

from __future__ import annotations

from array import array
from typing import Any

__all__ = ["NumpyPrefilter"]

_FLOAT32_UNIT = 2.0**-24  # unit roundoff of float32
_FLOAT32_TINY = 2.0**-149  # the smallest float32 subnormal: the absolute error of an underflow
_SAFETY = 4.0  # margin over the textbook bound (it already holds for any summation order)


class NumpyPrefilter:
    """A float32 matrix of the store's vectors, rows in ``keys`` order."""

    def __init__(self, keys: list[int], vectors: list[array[float]], norms: list[float]) -> None:
        import numpy

        self._np: Any = numpy
        dimensions = len(vectors[0]) if vectors else 0
        flat = array("f")
        for vector in vectors:
            flat.extend(vector)
        self._matrix: Any = numpy.frombuffer(flat, dtype=numpy.float32).reshape(
            len(vectors), dimensions
        )
        self._keys: Any = numpy.array(keys, dtype=numpy.int64)
        self._norms: Any = numpy.array(norms, dtype=numpy.float64)
        self._relative = _SAFETY * (dimensions + 2) * _FLOAT32_UNIT
        self._absolute = _SAFETY * (dimensions + 2) * _FLOAT32_TINY

    def candidates(
        self,
        query: array[float],
        query_norm: float,
        k: int,
        *,
        cosine: bool,
        min_score: float | None,
    ) -> list[int] | None:
        """Keys that may be among the ``k`` best scoring at least ``min_score``; every key
        that is, is here. None when the bound cannot be trusted (a non-finite product)."""
        np = self._np
        with np.errstate(over="ignore", invalid="ignore"):
            dots = (self._matrix @ np.frombuffer(query, dtype=np.float32)).astype(np.float64)
        if not np.isfinite(dots).all():
            return None
        error = self._relative * self._norms * query_norm + self._absolute
        if cosine:
            scale = self._norms * query_norm
            nonzero = scale != 0
            approximate = np.divide(dots, scale, out=np.zeros_like(dots), where=nonzero)
            error = np.divide(error, scale, out=np.zeros_like(error), where=nonzero)
        else:
            approximate = dots
        error = error * 1.001 + 1e-15 * (1.0 + np.abs(approximate))  # the division's roundings
        low = approximate - error
        high = approximate + error
        floor = -np.inf if min_score is None else min_score
        if len(low) > k:
            floor = max(floor, float(np.partition(low, len(low) - k)[len(low) - k]))
        kept: list[int] = self._keys[high >= floor].tolist()
        return kept
