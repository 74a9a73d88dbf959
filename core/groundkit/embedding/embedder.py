"""The embedder protocol: text in, fixed-size float vectors out, under a declared identity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, runtime_checkable

from groundkit.manifest import EmbeddingIdentity

__all__ = ["Embedder"]


@runtime_checkable
class Embedder(Protocol):
    """Turns passages and queries into vectors of ``identity.dimensions`` floats.

    Equal identities must give equal vectors for equal text: the identity is what a collection
    is bound to. ``similarity_floor`` is the similarity below which a passage is taken as
    unrelated to a query (dense evidence in hybrid abstention, adr/0008); it is a search
    policy, not part of the identity.
    """

    @property
    def identity(self) -> EmbeddingIdentity: ...
    @property
    def similarity_floor(self) -> float: ...
    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        """One vector per passage, in order."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The vector of a search query (some models embed queries differently)."""
        ...
