"""The exact vector store: every vector scored, in pure Python, bit-for-bit reproducible.

Vectors are held as float32 (``array('f')``). A float32 product is exact in a double, and
``math.fsum`` rounds the sum once, so a score is the correctly rounded exact dot product,
identical on every platform and in any summation order.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from operator import mul

from groundkit.index.topk import select_top_k
from groundkit.manifest import SIMILARITIES
from groundkit.vectors.base import TieKeys

__all__ = ["ExactVectorStore"]


def _norm(values: array[float]) -> float:
    return math.sqrt(math.fsum(x * x for x in values))


class ExactVectorStore:
    """Brute-force cosine or dot-product search over float32 vectors."""

    def __init__(self, dimensions: int, similarity: str = "cosine") -> None:
        if similarity not in SIMILARITIES:
            raise ValueError(
                f"similarity must be one of {', '.join(SIMILARITIES)}, got {similarity!r}"
            )
        if dimensions < 1:
            raise ValueError(f"dimensions must be >= 1, got {dimensions}")
        self._dimensions = dimensions
        self._similarity = similarity
        self._vectors: dict[int, tuple[array[float], float]] = {}

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def similarity(self) -> str:
        return self._similarity

    def _as_float32(self, vector: Sequence[float]) -> array[float]:
        if len(vector) != self._dimensions:
            raise ValueError(
                f"vector has {len(vector)} dimensions, this store holds {self._dimensions}"
            )
        values = (
            vector if isinstance(vector, array) and vector.typecode == "f" else array("f", vector)
        )
        if not all(math.isfinite(x) for x in values):
            raise ValueError("vector holds NaN or infinity")
        return values

    def add(self, keys: Sequence[int], vectors: Sequence[Sequence[float]]) -> None:
        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys but {len(vectors)} vectors")
        for key, vector in zip(keys, vectors, strict=True):
            values = self._as_float32(vector)
            self._vectors[key] = (values, _norm(values))

    def delete(self, keys: Sequence[int]) -> None:
        for key in keys:
            self._vectors.pop(key, None)

    def count(self) -> int:
        return len(self._vectors)

    def scores(self, query: Sequence[float]) -> dict[int, float]:
        """The similarity of every stored vector to ``query``."""
        q = self._as_float32(query)
        fsum = math.fsum
        if self._similarity == "dot":
            return {key: fsum(map(mul, v, q)) for key, (v, _) in self._vectors.items()}
        q_norm = _norm(q)
        out: dict[int, float] = {}
        for key, (v, v_norm) in self._vectors.items():
            scale = v_norm * q_norm
            out[key] = fsum(map(mul, v, q)) / scale if scale else 0.0
        return out

    def search(
        self,
        query: Sequence[float],
        k: int,
        *,
        min_score: float | None = None,
        tie_keys: TieKeys | None = None,
    ) -> list[tuple[int, float]]:
        return select_top_k(self.scores(query), k, tie_keys, min_score)
