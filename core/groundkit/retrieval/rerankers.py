"""Rerankers by name (``--reranker NAME``) or model folder (``--reranker DIR``).

Like the embedder and vector-store registries: plugins call ``register_reranker``; a model
folder is loaded by the ``onnx`` extra, imported only when asked for (adr/0012).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from groundkit.errors import ConfigurationError
from groundkit.plugins import load_named
from groundkit.retrieval.rerank import Reranker

__all__ = ["RerankerFactory", "available_rerankers", "register_reranker", "resolve_reranker"]

RerankerFactory = Callable[[], Reranker]

_REGISTRY: dict[str, RerankerFactory] = {}


def register_reranker(name: str, factory: RerankerFactory) -> None:
    """Make ``name`` usable as ``--reranker NAME`` (``factory()`` builds the reranker)."""
    if not name or not name.isidentifier():
        raise ConfigurationError(f"reranker name {name!r} must be a non-empty identifier")
    _REGISTRY[name] = factory


def available_rerankers() -> tuple[str, ...]:
    """The registered reranker names, sorted (none in the core: bring a model folder)."""
    return tuple(sorted(_REGISTRY))


def resolve_reranker(spec: str) -> Reranker:
    """``spec`` as a registered name, or a folder holding an ONNX cross-encoder."""
    factory = _REGISTRY.get(spec)
    if factory is not None:
        return factory()
    if Path(spec).is_dir():
        cross_encoder: Any = load_named("reranker:onnx-folder", what=f"reranker {spec}")
        reranker: Reranker = cross_encoder.from_dir(spec)
        return reranker
    known = ", ".join(available_rerankers()) or "none registered"
    raise ConfigurationError(
        f"reranker {spec!r} is neither a registered name ({known}) nor a folder holding an ONNX "
        "cross-encoder (model.onnx, tokenizer.json)",
        subject=spec,
    )
