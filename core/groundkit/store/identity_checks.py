"""The checks a store makes on the identities a collection records (adr/0003, adr/0009).

Both stores refuse a write that would mix analyzers or embeddings before they change anything,
and decode the stored embedding manifest strictly. These compare recorded JSON only, so the
store imports nothing of analysis (``groundkit.identities`` binds an ``Analyzer``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from groundkit import codec
from groundkit.errors import IndexIdentityError, StorageError
from groundkit.manifest import EmbeddingIdentity, ManifestError

if TYPE_CHECKING:
    from groundkit.store.protocols import IndexedChunk

__all__ = ["check_analyzer_write", "check_embedding_write", "decode_manifest"]


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
