"""Loading a read view's vectors into the exact store, checking them against its chunks.

Runs once per retriever, the first time a dense or hybrid search needs it. The vector side must
cover exactly the read view's chunks: none missing (``StorageError``), none orphaned
(``RetrievalError``): a partial or stale dense side would silently mislabel answers.
"""

from __future__ import annotations

from groundkit.errors import RetrievalError, StorageError
from groundkit.manifest import EmbeddingIdentity
from groundkit.store.protocols import CollectionReader
from groundkit.vectors.exact import ExactVectorStore
from groundkit.vectors.packing import unpack_vector

__all__ = ["load_vectors"]


def load_vectors(
    reader: CollectionReader, identity: EmbeddingIdentity, *, location: str
) -> ExactVectorStore:
    """An exact store holding every vector of ``reader``'s read view."""
    chunk_keys = {key for key, _ in reader.chunk_lengths()}
    store = ExactVectorStore(identity.dimensions, identity.similarity)
    keys: list[int] = []
    vectors = []
    orphans: list[int] = []
    for key, blob in reader.vectors():
        if key not in chunk_keys:
            orphans.append(key)
            continue
        try:
            vectors.append(unpack_vector(blob, identity.dimensions))
        except ValueError as exc:
            raise StorageError(
                f"collection {location}: the vector of chunk key {key} is damaged ({exc}); "
                "re-ingest into a new collection",
                subject=location,
            ) from None
        keys.append(key)
    if orphans:
        raise RetrievalError(
            f"collection {location}: {len(orphans)} vector(s) belong to no chunk (first: chunk "
            f"key {min(orphans)}); the collection is inconsistent: run `groundkit verify` and "
            "re-ingest",
            subject=location,
            verdict="unresolvable",
        )
    missing = len(chunk_keys) - len(keys)
    if missing:
        side = "holds no vectors" if not keys else f"lacks vectors for {missing} chunk(s)"
        raise StorageError(
            f"collection {location} is bound to embedding {identity.model!r} but {side} of its "
            f"{len(chunk_keys)} chunks; the dense side is damaged: re-ingest into a new "
            "collection (or search with mode='bm25')",
            subject=location,
        )
    store.add(keys, vectors)
    return store
