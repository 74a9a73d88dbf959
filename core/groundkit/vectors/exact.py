"""The exact vector store: every score exact, bit-for-bit reproducible.

Vectors are held as float32 (``array('f')``). A float32 product is exact in a double, and
``math.fsum`` rounds the sum once, so a score is the correctly rounded exact dot product,
identical on every platform and in any summation order. With numpy importable, a bounded
float32 prefilter (``prefilter.py``) picks the keys that can reach the top k and only those are
scored: the results are the same as scoring every vector (adr/0029).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from operator import mul

from groundkit.index.bm25 import ACCELERATORS, Accelerator, numpy_available
from groundkit.index.topk import select_top_k
from groundkit.manifest import SIMILARITIES
from groundkit.vectors.prefilter import NumpyPrefilter
from groundkit.vectors.vector_store import TieKeys

__all__ = ["ExactVectorStore"]


def _norm(values: array[float]) -> float:
    return math.sqrt(math.fsum(x * x for x in values))


class ExactVectorStore:
    """Brute-force cosine or dot-product search over float32 vectors."""

    def __init__(
        self, dimensions: int, similarity: str = "cosine", *, accelerator: Accelerator = "auto"
    ) -> None:
        """``accelerator``: ``numpy`` prefilters (``auto``: when importable), ``python`` scores
        every vector; both give the same results."""
        if accelerator not in ACCELERATORS:
            raise ValueError(
                f"unknown accelerator {accelerator!r}; choose one of {', '.join(ACCELERATORS)}"
            )
        if accelerator == "numpy" and not numpy_available():
            raise ValueError(
                "accelerator 'numpy' was asked for but numpy is not installed; "
                "pip install numpy, or use accelerator 'auto' or 'python'"
            )
        use_numpy = accelerator == "numpy" or (accelerator == "auto" and numpy_available())
        self.accelerator: str = "numpy" if use_numpy else "python"
        self._prefilter: NumpyPrefilter | None = None
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
        self._prefilter = None

    def delete(self, keys: Sequence[int]) -> None:
        for key in keys:
            self._vectors.pop(key, None)
        self._prefilter = None

    def count(self) -> int:
        return len(self._vectors)

    def scores(self, query: Sequence[float]) -> dict[int, float]:
        """The similarity of every stored vector to ``query``."""
        return self._scores(self._as_float32(query), self._vectors)

    def _scores(self, q: array[float], keys: Iterable[int]) -> dict[int, float]:
        """The exact similarity of each of ``keys`` to ``q``."""
        fsum = math.fsum
        vectors = self._vectors
        if self._similarity == "dot":
            return {key: fsum(map(mul, vectors[key][0], q)) for key in keys}
        q_norm = _norm(q)
        out: dict[int, float] = {}
        for key in keys:
            v, v_norm = vectors[key]
            scale = v_norm * q_norm
            out[key] = fsum(map(mul, v, q)) / scale if scale else 0.0
        return out

    def _candidates(self, q: array[float], k: int, min_score: float | None) -> Iterable[int]:
        """The keys worth scoring exactly: the prefilter's, or all of them."""
        if self.accelerator != "numpy" or k <= 0 or len(self._vectors) <= k:
            return self._vectors
        if self._prefilter is None:
            keys = list(self._vectors)
            pairs = [self._vectors[key] for key in keys]
            self._prefilter = NumpyPrefilter(
                keys, [v for v, _ in pairs], [norm for _, norm in pairs]
            )
        found = self._prefilter.candidates(
            q, _norm(q), k, cosine=self._similarity == "cosine", min_score=min_score
        )
        return self._vectors if found is None else found

    def search(
        self,
        query: Sequence[float],
        k: int,
        *,
        min_score: float | None = None,
        tie_keys: TieKeys | None = None,
    ) -> list[tuple[int, float]]:
        q = self._as_float32(query)
        scores = self._scores(q, self._candidates(q, k, min_score))
        return select_top_k(scores, k, tie_keys, min_score)
