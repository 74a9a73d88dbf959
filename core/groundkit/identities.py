"""Binding a collection to its analyzer and embedding identities, and checking them.

The one place every identity check lives: ingest and search resolve the analyzer and the
embedder against what the collection recorded (``bind_analyzer``, ``bind_embedder``), and both
stores refuse a write that would mix identities (``groundkit.store.identity_checks``, which
imports nothing of analysis) before they change anything (adr/0003, adr/0009).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from groundkit import codec
from groundkit.analysis.analyzer import Analyzer
from groundkit.errors import ConfigurationError, IndexIdentityError
from groundkit.manifest import EmbeddingIdentity

if TYPE_CHECKING:
    from groundkit.embedding.embedder import Embedder
    from groundkit.store.protocols import CollectionStore

__all__ = [
    "bind_analyzer",
    "bind_embedder",
    "bound_embedder",
]


def bind_analyzer(
    location: str, stored: Mapping[str, Any] | None, analyzer: Analyzer | None
) -> Analyzer:
    """The analyzer to use on a collection that recorded ``stored`` (None: not bound yet).

    ``analyzer`` None means the collection's own (or the default for a new one); another
    identity than the recorded one raises ``IndexIdentityError``.
    """
    if stored is None:
        return analyzer or Analyzer()
    if analyzer is None:
        return Analyzer.from_identity(stored, subject=location)
    if analyzer.identity != stored:
        raise IndexIdentityError(
            f"collection {location} was built with analyzer {codec.encode(dict(stored))}, not "
            f"{analyzer.identity_json}; omit the analyzer options to use the collection's own, "
            "or use another --collection",
            subject=location,
            expected=codec.encode(dict(stored)),
            found=analyzer.identity_json,
        )
    return analyzer


def bind_embedder(
    location: str, manifest: EmbeddingIdentity | None, embedder: Embedder | None
) -> Embedder | None:
    """``embedder`` checked against the collection's manifest (``IndexIdentityError`` when it
    differs); the caller finds the registered one when ``embedder`` is None."""
    if embedder is not None and manifest is not None and embedder.identity != manifest:
        raise IndexIdentityError(
            f"collection {location} is bound to embedding {manifest.to_json()}, but was given "
            f"{embedder.identity.to_json()}; omit the embedder to use the collection's own, or "
            "use the collection it was built for",
            subject=location,
            expected=manifest.to_json(),
            found=embedder.identity.to_json(),
        )
    return embedder


def bound_embedder(store: CollectionStore, embedder: Embedder | None) -> Embedder | None:
    """``embedder``, checked against the collection's manifest; or the one the manifest names."""
    # the registry imports extras' names
    from groundkit.embedding.embedder_registry import embedder_for

    manifest = store.embedding_identity()
    if manifest is None or embedder is not None:
        return bind_embedder(store.location, manifest, embedder)
    found = embedder_for(manifest)
    if found is None:
        raise ConfigurationError(
            f"collection {store.location} is bound to embedding {manifest.to_json()}, which no "
            "registered embedder reproduces; pass that embedder (embedder= in Python)",
            subject=store.location,
        )
    return found
