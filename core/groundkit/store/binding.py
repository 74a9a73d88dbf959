"""The rules every store applies to a write's embedding, before it changes anything.

Shared by the SQLite and memory stores so both refuse exactly the same writes (adr/0009).
"""

from __future__ import annotations

from collections.abc import Sequence

from groundkit.errors import IndexIdentityError, StorageError
from groundkit.manifest import EmbeddingIdentity, ManifestError
from groundkit.store.base import IndexedChunk

__all__ = ["check_embedding_write", "decode_manifest"]


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
