"""Rerankers by name (``--reranker NAME``) or model folder (``--reranker DIR``).

Like the embedder and vector-store registries: plugins register theirs through
``groundkit.extend.PluginRegistry`` (the native extra's plugin loads ONNX cross-encoder
folders), loaded the first time a name or a folder is asked for that nothing registered
provides (adr/0053); a missing extra is an error naming its ``pip install`` (adr/0012).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from groundkit.errors import ConfigurationError
from groundkit.plugins import install_hint, load_plugins
from groundkit.retrieval.rerank import Reranker

__all__ = [
    "RerankerFactory",
    "RerankerFolderLoader",
    "available_rerankers",
    "register_reranker",
    "register_reranker_folder",
    "resolve_reranker",
]

RerankerFactory = Callable[[], Reranker]
RerankerFolderLoader = Callable[[Path], Reranker]
"""Builds a reranker from a model folder (``--reranker DIR``)."""

_REGISTRY: dict[str, RerankerFactory] = {}
_FOLDER: list[RerankerFolderLoader] = []  # the one folder loader, when a plugin gave one


def register_reranker(name: str, factory: RerankerFactory) -> None:
    """Make ``name`` usable as ``--reranker NAME`` (``factory()`` builds the reranker)."""
    if not name or not name.isidentifier():
        raise ConfigurationError(f"reranker name {name!r} must be a non-empty identifier")
    _REGISTRY[name] = factory


def register_reranker_folder(load: RerankerFolderLoader) -> None:
    """Make ``--reranker DIR`` load a model folder with ``load`` (replacing any before)."""
    _FOLDER[:] = [load]


def available_rerankers() -> tuple[str, ...]:
    """The registered reranker names, sorted (none in the core: bring a model folder)."""
    return tuple(sorted(_REGISTRY))


def resolve_reranker(spec: str) -> Reranker:
    """``spec`` as a registered name, or a folder holding an ONNX cross-encoder."""
    if spec not in _REGISTRY:
        load_plugins()
    factory = _REGISTRY.get(spec)
    if factory is not None:
        return factory()
    if Path(spec).is_dir():
        if not _FOLDER:
            raise ConfigurationError(
                f"reranker {spec}: no installed plugin loads model folders; groundkit's extra "
                f"'onnx' does: {install_hint('onnx')}",
                subject=spec,
            )
        return _FOLDER[0](Path(spec))
    known = ", ".join(available_rerankers()) or "none registered"
    raise ConfigurationError(
        f"reranker {spec!r} is neither a registered name ({known}) nor a folder holding an ONNX "
        "cross-encoder (model.onnx, tokenizer.json)",
        subject=spec,
    )
