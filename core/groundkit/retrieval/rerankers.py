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
from groundkit.plugin_registry import Registry
from groundkit.plugins import failure_note, install_hint
from groundkit.retrieval.rerank import Reranker

__all__ = [
    "RERANKERS",
    "RERANKER_FOLDERS",
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

RERANKERS: Registry[RerankerFactory] = Registry("reranker")
RERANKER_FOLDERS: Registry[RerankerFolderLoader] = Registry("reranker-folder")
"""Model-folder loaders: the application's (``register_reranker_folder``), else a plugin's."""


def register_reranker(name: str, factory: RerankerFactory) -> None:
    """Make ``name`` usable as ``--reranker NAME`` (``factory()`` builds the reranker)."""
    RERANKERS.add(name, factory)


def register_reranker_folder(load: RerankerFolderLoader) -> None:
    """Make ``--reranker DIR`` load a model folder with ``load`` (replacing any before)."""
    RERANKER_FOLDERS.reset()
    RERANKER_FOLDERS.add("application", load)


def available_rerankers() -> tuple[str, ...]:
    """The registered reranker names, sorted (none in the core: bring a model folder)."""
    return tuple(sorted(RERANKERS.names()))


def resolve_reranker(spec: str) -> Reranker:
    """``spec`` as a registered name, or a folder holding an ONNX cross-encoder."""
    if spec in RERANKERS:
        return RERANKERS.get(spec)()
    if Path(spec).is_dir():
        loaders = RERANKER_FOLDERS.names(load=True)
        if not loaders:
            raise ConfigurationError(
                f"reranker {spec}: no installed plugin loads model folders; groundkit's extra "
                f"'onnx' does: {install_hint('onnx')}{failure_note()}",
                subject=spec,
            )
        return RERANKER_FOLDERS.get(loaders[0])(Path(spec))
    known = ", ".join(available_rerankers()) or "none registered"
    raise ConfigurationError(
        f"unknown reranker {spec!r}: neither a registered name ({known}) nor a folder holding an "
        f"ONNX cross-encoder (model.onnx, tokenizer.json){failure_note()}",
        subject=spec,
    )
