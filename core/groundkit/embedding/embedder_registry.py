"""Embedders by name (``--embedder hash``), and by the identity a collection was bound to.

The core registers ``hash``; native extras call ``register_embedder`` when imported. A factory
gets ``None`` for its default embedder, or a stored identity to rebuild exactly that one (and
raises ``IndexIdentityError`` when it cannot). Names the native extras provide (``minilm``) are
known here without importing them: the extra is imported the first time one is asked for, and
a missing extra is a ``ConfigurationError`` naming the ``pip install`` (adr/0012).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.embedding.embedder import Embedder
from groundkit.embedding.hashing import HashEmbedder
from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity
from groundkit.plugins import load_named

__all__ = [
    "EmbedderFactory",
    "available_embedders",
    "embedder_for",
    "get_embedder",
    "register_embedder",
    "resolve_embedder",
]

EmbedderFactory = Callable[[EmbeddingIdentity | None], Embedder]


@dataclass(frozen=True, slots=True)
class _Entry:
    provider: str
    model: str
    factory: EmbedderFactory


_REGISTRY: dict[str, _Entry] = {}


@dataclass(frozen=True, slots=True)
class _LazyEntry:
    provider: str
    model: str
    key: str  # its entry in groundkit.plugins.EXTRAS, imported on first use


_LAZY: dict[str, _LazyEntry] = {
    "minilm": _LazyEntry("onnx", "all-MiniLM-L6-v2", "embedder:minilm"),
}


def _entry(name: str) -> _Entry | None:
    """The registered entry of ``name``, importing its extra first if it is a lazy one."""
    entry = _REGISTRY.get(name)
    lazy = _LAZY.get(name)
    if entry is None and lazy is not None:
        factory = load_named(lazy.key, what=f"embedder {name!r}")
        if not callable(factory):
            raise ConfigurationError(f"embedder {name!r}: {lazy.key} is not callable")
        entry = _Entry(lazy.provider, lazy.model, factory)
        _REGISTRY[name] = entry
    return entry


def register_embedder(name: str, *, provider: str, model: str, factory: EmbedderFactory) -> None:
    """Make ``name`` usable as ``--embedder NAME``, rebuilding identities of (provider, model)."""
    if not name or not name.isidentifier():
        raise ConfigurationError(f"embedder name {name!r} must be a non-empty identifier")
    _REGISTRY[name] = _Entry(provider, model, factory)


def available_embedders() -> tuple[str, ...]:
    """Registered names and the names native extras provide (imported on use), sorted."""
    return tuple(sorted(set(_REGISTRY) | set(_LAZY)))


def get_embedder(name: str) -> Embedder:
    """The default embedder registered as ``name`` (importing its native extra if needed)."""
    entry = _entry(name)
    if entry is None:
        raise ConfigurationError(
            f"unknown embedder {name!r}; available: {', '.join(available_embedders())} "
            "(native ones come with groundkit's extras)",
            subject=name,
        )
    return entry.factory(None)


def resolve_embedder(spec: str) -> Embedder:
    """``spec`` as a registered name (``hash``, ``minilm``) or as a model folder.

    A folder holds an ONNX encoder (``model.onnx``, ``tokenizer.json``, optionally
    ``groundkit.json``) and is loaded by the ``onnx`` extra; its identity records the model
    file's digest, so a collection built with it only opens with the same files (adr/0012).
    """
    if spec in available_embedders():
        return get_embedder(spec)
    if Path(spec).is_dir():
        loader: Any = load_named("embedder:onnx-folder", what=f"model folder {spec}")
        embedder: Embedder = loader.from_dir(spec)
        return embedder
    raise ConfigurationError(
        f"embedder {spec!r} is neither a registered name ({', '.join(available_embedders())}) "
        "nor a model folder (model.onnx, tokenizer.json, optional groundkit.json)",
        subject=spec,
    )


def embedder_for(identity: EmbeddingIdentity) -> Embedder | None:
    """The embedder that reproduces ``identity``, or None if no registered one claims it.

    Raises ``IndexIdentityError`` when one claims the model but cannot match the identity.
    """
    for name in available_embedders():
        known = _REGISTRY.get(name) or _LAZY[name]
        if (known.provider, known.model) == (identity.provider, identity.model):
            entry = _entry(name)
            assert entry is not None
            return entry.factory(identity)
    return None


def _hash_factory(identity: EmbeddingIdentity | None) -> Embedder:
    return HashEmbedder() if identity is None else HashEmbedder.from_identity(identity)


register_embedder("hash", provider="groundkit", model="hash", factory=_hash_factory)
