"""The vector-store protocol: exact (pure Python) in the core, approximate ones in extras."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from groundkit.index.ties import TieKeys

__all__ = ["TieKeys", "VectorStore"]


@runtime_checkable
class VectorStore(Protocol):
    """Vectors by chunk key, searched by similarity to a query vector."""

    @property
    def dimensions(self) -> int: ...
    @property
    def similarity(self) -> str: ...
    def add(self, keys: Sequence[int], vectors: Sequence[Sequence[float]]) -> None:
        """Store one vector per key (a key already present is replaced)."""
        ...

    def delete(self, keys: Sequence[int]) -> None:
        """Forget these keys (absent ones are ignored)."""
        ...

    def search(
        self,
        query: Sequence[float],
        k: int,
        *,
        min_score: float | None = None,
        tie_keys: TieKeys | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` most similar (chunk key, score), best first, none below ``min_score``.

        Equal scores are ordered by ``tie_keys`` when given (a key it leaves out raises
        ``KeyError``), by chunk key otherwise.
        """
        ...

    def count(self) -> int: ...
