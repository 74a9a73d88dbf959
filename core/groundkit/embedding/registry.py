"""Embedders by name (``--embedder hash``), and by the identity a collection was bound to.

The core registers ``hash``; native extras call ``register_embedder`` when imported. A factory
gets ``None`` for its default embedder, or a stored identity to rebuild exactly that one (and
raises ``IndexIdentityError`` when it cannot).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from groundkit.embedding.base import Embedder
from groundkit.embedding.hashing import HashEmbedder
from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity

__all__ = [
    "EmbedderFactory",
    "available_embedders",
    "embedder_for",
    "get_embedder",
    "register_embedder",
]

EmbedderFactory = Callable[[EmbeddingIdentity | None], Embedder]


@dataclass(frozen=True, slots=True)
class _Entry:
    provider: str
    model: str
    factory: EmbedderFactory


_REGISTRY: dict[str, _Entry] = {}


def register_embedder(name: str, *, provider: str, model: str, factory: EmbedderFactory) -> None:
    """Make ``name`` usable as ``--embedder NAME``, rebuilding identities of (provider, model)."""
    if not name or not name.isidentifier():
        raise ConfigurationError(f"embedder name {name!r} must be a non-empty identifier")
    _REGISTRY[name] = _Entry(provider, model, factory)


def available_embedders() -> tuple[str, ...]:
    """Registered names, sorted."""
    return tuple(sorted(_REGISTRY))


def get_embedder(name: str) -> Embedder:
    """The default embedder registered as ``name``."""
    entry = _REGISTRY.get(name)
    if entry is None:
        raise ConfigurationError(
            f"unknown embedder {name!r}; available: {', '.join(available_embedders())} "
            "(native ones come with groundkit's extras)",
            subject=name,
        )
    return entry.factory(None)


def embedder_for(identity: EmbeddingIdentity) -> Embedder | None:
    """The embedder that reproduces ``identity``, or None if no registered one claims it.

    Raises ``IndexIdentityError`` when one claims the model but cannot match the identity.
    """
    for name in available_embedders():
        entry = _REGISTRY[name]
        if (entry.provider, entry.model) == (identity.provider, identity.model):
            return entry.factory(identity)
    return None


def _hash_factory(identity: EmbeddingIdentity | None) -> Embedder:
    return HashEmbedder() if identity is None else HashEmbedder.from_identity(identity)


register_embedder("hash", provider="groundkit", model="hash", factory=_hash_factory)
