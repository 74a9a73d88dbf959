"""Embedders by name (``--embedder hash``), and by the identity a collection was bound to.

The core registers ``hash``; plugins record theirs (``minilm``, from the native extra's
plugin), loaded the first time a name or an identity is asked for that nothing registered
in-process claims (adr/0053, adr/0058). A factory gets ``None`` for its default embedder, or a
stored identity to rebuild exactly that one (and raises ``IndexIdentityError`` when it cannot).
A name groundkit's extras provide and that is missing is a ``ConfigurationError`` naming the
``pip install`` (adr/0012).
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from pathlib import Path

from groundkit.embedding.embedder import Embedder
from groundkit.embedding.hashing import HashEmbedder
from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity
from groundkit.plugin_registry import Registry
from groundkit.plugins import WELL_KNOWN, EmbedderEntry, failure_note, install_hint, well_known

__all__ = [
    "EMBEDDERS",
    "EMBEDDER_FOLDERS",
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


def _hash_factory(identity: EmbeddingIdentity | None) -> Embedder:
    return HashEmbedder() if identity is None else HashEmbedder.from_identity(identity)


EMBEDDERS: Registry[EmbedderEntry] = Registry(
    "embedder", {"hash": EmbedderEntry("groundkit", "hash", _hash_factory)}
)
EMBEDDER_FOLDERS: Registry[EmbedderFolderLoader] = Registry("embedder-folder")
"""Model-folder loaders: the application's (``register_embedder_folder``), else a plugin's."""


def register_embedder(name: str, *, provider: str, model: str, factory: EmbedderFactory) -> None:
    """Make ``name`` usable as ``--embedder NAME``, rebuilding identities of (provider, model)."""
    EMBEDDERS.add(name, EmbedderEntry(provider, model, factory))


def register_embedder_folder(load: EmbedderFolderLoader) -> None:
    """Make ``--embedder DIR`` load a model folder with ``load`` (replacing any before)."""
    EMBEDDER_FOLDERS.reset()
    EMBEDDER_FOLDERS.add("application", load)


def available_embedders() -> tuple[str, ...]:
    """Registered names and the names groundkit's extras provide (loaded on use), sorted."""
    return tuple(sorted(set(EMBEDDERS.names()) | set(well_known("embedder"))))


def get_embedder(name: str) -> Embedder:
    """The default embedder registered as ``name`` (loading the plugins if needed)."""
    return EMBEDDERS.get(name).factory(None)


def _from_folder(folder: str) -> Embedder:
    loaders = EMBEDDER_FOLDERS.names(load=True)
    if not loaders:
        raise ConfigurationError(
            f"model folder {folder}: no installed plugin loads model folders; groundkit's extra "
            f"'onnx' does: {install_hint('onnx')}{failure_note()}",
            subject=folder,
        )
    return EMBEDDER_FOLDERS.get(loaders[0])(Path(folder))


def resolve_embedder(spec: str) -> Embedder:
    """``spec`` as a registered name (``hash``, ``minilm``) or as a model folder.

    A folder holds an ONNX encoder (``model.onnx``, ``tokenizer.json``, optionally
    ``groundkit.json``) and is loaded by the ``onnx`` extra; its identity records the model
    file's digest, so a collection built with it only opens with the same files (adr/0012).
    A name wins over a folder of the same name.
    """
    if spec in EMBEDDERS:  # a plugin's name wins over a folder of the same name too
        return EMBEDDERS.get(spec).factory(None)
    if Path(spec).is_dir():
        return _from_folder(spec)
    if f"embedder:{spec}" in WELL_KNOWN:
        return EMBEDDERS.get(spec).factory(None)  # raises, naming the extra to install
    raise ConfigurationError(
        f"embedder {spec!r} is neither a registered name ({', '.join(available_embedders())}) "
        f"nor a model folder (model.onnx, tokenizer.json, optional groundkit.json)"
        f"{failure_note()}",
        subject=spec,
    )


def _claiming(identity: EmbeddingIdentity, *, load: bool) -> EmbedderEntry | None:
    for name in EMBEDDERS.names(load=load):
        entry = EMBEDDERS.get(name)
        if (entry.provider, entry.model) == (identity.provider, identity.model):
            return entry
    return None


def embedder_maker(identity: EmbeddingIdentity) -> Callable[[], Embedder] | None:
    """What makes the embedder that reproduces ``identity``, or None if no registered one
    claims it (the plugins are loaded when nothing registered does). Claiming is a name
    lookup; making may load a model, so a reader makes it only for a search that embeds."""
    entry = _claiming(identity, load=False) or _claiming(identity, load=True)
    return None if entry is None else partial(entry.factory, identity)


def embedder_for(identity: EmbeddingIdentity) -> Embedder | None:
    """The embedder that reproduces ``identity``, or None if no registered one claims it.

    Raises ``IndexIdentityError`` when one claims the model but cannot match the identity.
    """
    maker = embedder_maker(identity)
    return None if maker is None else maker()
