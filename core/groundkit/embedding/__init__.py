"""Embedders: the protocol, the deterministic ``hash`` embedder, and the name registry."""

from __future__ import annotations

from groundkit.embedding.embedder import Embedder
from groundkit.embedding.embedder_registry import (
    available_embedders,
    embedder_for,
    get_embedder,
    register_embedder,
)
from groundkit.embedding.hashing import HashEmbedder
from groundkit.manifest import EmbeddingIdentity

__all__ = [
    "Embedder",
    "EmbeddingIdentity",
    "HashEmbedder",
    "available_embedders",
    "embedder_for",
    "get_embedder",
    "register_embedder",
]
