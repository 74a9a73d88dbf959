"""Embedders by name (``--embedder hash``), and by the identity a collection was bound to.

The core registers ``hash``; plugins register theirs (``minilm``, from the native extra's
plugin) through ``groundkit.extend.PluginRegistry``, loaded the first time a name or an
identity is asked for that nothing registered claims (adr/0053). A factory gets ``None`` for
its default embedder, or a stored identity to rebuild exactly that one (and raises
``IndexIdentityError`` when it cannot). A name groundkit's extras provide and that is missing is
a ``ConfigurationError`` naming the ``pip install`` (adr/0012).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from groundkit.embedding.embedder import Embedder
from groundkit.embedding.hashing import HashEmbedder
from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity
from groundkit.plugins import WELL_KNOWN, install_hint, load_plugins, not_provided, well_known

__all__ = [
    "EmbedderFactory",
    "EmbedderFolderLoader",
    "available_embedders",
    "embedder_for",
    "embedder_maker",
    "get_embedder",
    "register_embedder",
    "register_embedder_folder",
    "resolve_embedder",
]

EmbedderFactory = Callable[[EmbeddingIdentity | None], Embedder]
EmbedderFolderLoader = Callable[[Path], Embedder]
"""Builds an embedder from a model folder (``--embedder DIR``)."""


@dataclass(frozen=True, slots=True)
class _Entry:
    provider: str
    model: str
    factory: EmbedderFactory


_REGISTRY: dict[str, _Entry] = {}
_FOLDER: list[EmbedderFolderLoader] = []  # the one folder loader, when a plugin gave one


def _entry(name: str) -> _Entry | None:
    """The registered entry of ``name``, loading the plugins first if nothing registered it."""
    if name not in _REGISTRY:
        load_plugins()
    return _REGISTRY.get(name)


def register_embedder(name: str, *, provider: str, model: str, factory: EmbedderFactory) -> None:
    """Make ``name`` usable as ``--embedder NAME``, rebuilding identities of (provider, model)."""
    if not name or not name.isidentifier():
        raise ConfigurationError(f"embedder name {name!r} must be a non-empty identifier")
    _REGISTRY[name] = _Entry(provider, model, factory)


def register_embedder_folder(load: EmbedderFolderLoader) -> None:
    """Make ``--embedder DIR`` load a model folder with ``load`` (replacing any before)."""
    _FOLDER[:] = [load]


def available_embedders() -> tuple[str, ...]:
    """Registered names and the names groundkit's extras provide (loaded on use), sorted."""
    return tuple(sorted(set(_REGISTRY) | set(well_known("embedder"))))


def get_embedder(name: str) -> Embedder:
    """The default embedder registered as ``name`` (loading the plugins if needed)."""
    entry = _entry(name)
    if entry is None:
        raise not_provided("embedder", name, known=available_embedders())
    return entry.factory(None)


def _from_folder(folder: str) -> Embedder:
    if not _FOLDER:
        load_plugins()
    if not _FOLDER:
        raise ConfigurationError(
            f"model folder {folder}: no installed plugin loads model folders; groundkit's extra "
            f"'onnx' does: {install_hint('onnx')}",
            subject=folder,
        )
    return _FOLDER[0](Path(folder))


def resolve_embedder(spec: str) -> Embedder:
    """``spec`` as a registered name (``hash``, ``minilm``) or as a model folder.

    A folder holds an ONNX encoder (``model.onnx``, ``tokenizer.json``, optionally
    ``groundkit.json``) and is loaded by the ``onnx`` extra; its identity records the model
    file's digest, so a collection built with it only opens with the same files (adr/0012).
    A name wins over a folder of the same name.
    """
    if spec not in available_embedders() and Path(spec).is_dir():
        load_plugins()  # a plugin's name wins over a folder of the same name too
        if spec not in _REGISTRY:
            return _from_folder(spec)
    entry = _entry(spec)
    if entry is not None:
        return entry.factory(None)
    if f"embedder:{spec}" in WELL_KNOWN:
        raise not_provided("embedder", spec, known=available_embedders())
    raise ConfigurationError(
        f"embedder {spec!r} is neither a registered name ({', '.join(available_embedders())}) "
        "nor a model folder (model.onnx, tokenizer.json, optional groundkit.json)",
        subject=spec,
    )


def _claiming(identity: EmbeddingIdentity) -> _Entry | None:
    for name in sorted(_REGISTRY):
        entry = _REGISTRY[name]
        if (entry.provider, entry.model) == (identity.provider, identity.model):
            return entry
    return None


def embedder_maker(identity: EmbeddingIdentity) -> Callable[[], Embedder] | None:
    """What makes the embedder that reproduces ``identity``, or None if no registered one
    claims it (the plugins are loaded when nothing registered does). Claiming is a name
    lookup; making may load a model, so a reader makes it only for a search that embeds."""
    entry = _claiming(identity)
    if entry is None:
        load_plugins()
        entry = _claiming(identity)
    return None if entry is None else partial(entry.factory, identity)


def embedder_for(identity: EmbeddingIdentity) -> Embedder | None:
    """The embedder that reproduces ``identity``, or None if no registered one claims it.

    Raises ``IndexIdentityError`` when one claims the model but cannot match the identity.
    """
    maker = embedder_maker(identity)
    return None if maker is None else maker()


def _hash_factory(identity: EmbeddingIdentity | None) -> Embedder:
    return HashEmbedder() if identity is None else HashEmbedder.from_identity(identity)


register_embedder("hash", provider="groundkit", model="hash", factory=_hash_factory)
