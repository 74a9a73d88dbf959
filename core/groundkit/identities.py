"""Binding a collection to its analyzer and embedding identities, and checking them.

The one place every identity check lives: ingest and search resolve the analyzer and the
embedder against what the collection recorded (``bind_analyzer``, ``bind_embedder``), and both
stores refuse a write that would mix identities (``check_analyzer_write``,
``check_embedding_write``) before they change anything (adr/0003, adr/0009).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from groundkit import codec
from groundkit.analysis.analyzer import Analyzer
from groundkit.errors import ConfigurationError, IndexIdentityError, StorageError
from groundkit.manifest import EmbeddingIdentity, ManifestError

if TYPE_CHECKING:
    from groundkit.embedding.embedder import Embedder
    from groundkit.store.protocols import CollectionStore, IndexedChunk

__all__ = [
    "bind_analyzer",
    "bind_embedder",
    "bound_embedder",
    "check_analyzer_write",
    "check_embedding_write",
    "decode_manifest",
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


def check_analyzer_write(location: str, stored: str | None, identity: Mapping[str, Any]) -> str:
    """The analyzer identity JSON a write records; refused when the collection has another."""
    wanted = codec.encode(dict(identity))
    if stored is not None and stored != wanted:
        raise IndexIdentityError(
            f"collection {location} was built with analyzer {stored}, not {wanted}; "
            "use the same analyzer options or ingest into another --collection",
            subject=location,
            expected=stored,
            found=wanted,
        )
    return wanted


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


def decode_manifest(raw: str | None, location: str) -> EmbeddingIdentity | None:
    """The stored manifest, strictly decoded; ``StorageError`` when it is damaged."""
    if raw is None:
        return None
    try:
        return EmbeddingIdentity.from_json(raw)
    except ManifestError as exc:
        raise StorageError(
            f"collection {location} has an unreadable embedding manifest ({exc}); "
            "re-ingest into a new collection",
            subject=location,
        ) from None


def check_embedding_write(
    location: str,
    stored: str | None,
    embedding: EmbeddingIdentity | None,
    chunks: Sequence[IndexedChunk],
    *,
    holds_other_documents: bool,
) -> str | None:
    """Refuse a write that would mix identities or leave chunks without vectors.

    Returns the manifest JSON to store when this write binds the collection, else None.
    """
    if embedding is None:
        if stored is not None:
            raise IndexIdentityError(
                f"collection {location} is bound to embedding {stored}; every write must carry "
                "vectors from that embedder: pass it (`--embedder NAME`, or embedder= in Python)",
                subject=location,
                expected=stored,
                found="no embedder",
            )
        if any(item.vector is not None for item in chunks):
            raise ValueError("chunks carry vectors but no embedding identity was given")
        return None
    wanted = embedding.to_json()
    if stored is not None and stored != wanted:
        raise IndexIdentityError(
            f"collection {location} is bound to embedding {stored}, not {wanted}; vectors of two "
            "embedders cannot be compared: use the same embedder or another --collection",
            subject=location,
            expected=stored,
            found=wanted,
        )
    if stored is None and holds_other_documents:
        raise IndexIdentityError(
            f"collection {location} already holds documents without vectors, so it cannot be "
            f"bound to embedding {wanted}; ingest with --embedder into a new --collection",
            subject=location,
            expected="no embedding (lexical only)",
            found=wanted,
        )
    size = 4 * embedding.dimensions
    for item in chunks:
        if item.vector is None or len(item.vector) != size:
            got = "no vector" if item.vector is None else f"{len(item.vector)} bytes"
            raise ValueError(
                f"chunk {item.chunk.chunk_id} has {got}; embedding {embedding.model!r} needs "
                f"{size} bytes (pack with groundkit.vectors.pack_vector)"
            )
    return wanted if stored is None else None


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
