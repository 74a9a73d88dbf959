"""What binds a sharded collection together: a seal over its manifest and a stamp per shard.

The manifest's ``seal`` is a SHA-256 of its canonical JSON, so a record deleted from it (or an
emptied ``"shards": []``) is found when it is loaded. Each shard's record holds its content
stamp: how many documents it holds and a digest of their (document id, content hash) pairs.
A shard re-ingested with another analyzer, a shard copied over another, a shard rebuilt to the
same generation: each differs from its record in identity or stamp, and opening it raises
``ShardMismatchError`` (the collection is damaged, exit 6) rather than answering differently.
See adr/0042-integrity-checks.md.
"""

from __future__ import annotations

import hashlib
import json
from typing import TYPE_CHECKING, Any

from groundkit.errors import ShardMismatchError
from groundkit.shards.routing import shard_of
from groundkit.store.protocols import CollectionReader

if TYPE_CHECKING:
    from groundkit.shards.shard_manifest import ShardManifest

__all__ = ["ContentStamp", "check_shard", "content_stamp", "manifest_seal"]

ContentStamp = tuple[int, str]
"""(number of documents, SHA-256 of their sorted ``document_id content_hash`` lines)."""


def manifest_seal(data: dict[str, Any]) -> str:
    """The seal of a manifest's JSON object: SHA-256 of it without ``seal``, canonically."""
    body = {key: value for key, value in data.items() if key != "seal"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def content_stamp(
    reader: CollectionReader, *, shard: int | None = None, shards: int | None = None
) -> ContentStamp:
    """The content stamp of a shard's read view: one pass over its document records.

    With ``shard`` and ``shards``, also check that routing put every document there (a seal
    refuses to bind a shard holding another shard's documents)."""
    lines: list[str] = []
    for document in reader.iter_documents():
        if shard is not None and shards is not None and shard_of(document.source, shards) != shard:
            raise ShardMismatchError(
                f"shard {reader.location} holds {document.source}, which routing puts in shard "
                f"{shard_of(document.source, shards)} of {shards}: it was copied or built outside "
                "a sharded ingest; rebuild the sharded collection into a new one",
                subject=reader.location,
            )
        lines.append(f"{document.document_id} {document.content_hash}\n")
    lines.sort()
    digest = hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()
    return len(lines), digest


def check_shard(reader: CollectionReader, shard: int, manifest: ShardManifest) -> None:
    """Raise ``ShardMismatchError`` unless ``reader`` is the read view ``manifest`` sealed as
    shard ``shard``: same analyzer and embedding identity, statistics and content stamp."""
    record = manifest.shards[shard]
    embedding = reader.embedding_identity
    found = {
        "analyzer identity": reader.analyzer_identity,
        "embedding identity": None if embedding is None else embedding.to_json(),
        "chunk count": reader.chunk_count,
        "total length": reader.total_length,
    }
    expected: dict[str, object] = {
        "analyzer identity": manifest.analyzer,
        "embedding identity": manifest.embedding,
        "chunk count": record.chunk_count,
        "total length": record.total_length,
    }
    if not record.chunk_count:  # a shard the routing left empty records no identities
        for what in ("analyzer identity", "embedding identity"):
            if found[what] is None:
                expected[what] = None
    differ = [what for what in found if found[what] != expected[what]]
    if not differ and content_stamp(reader) != (record.documents, record.content):
        differ = ["content stamp (its documents)"]
    if differ:
        raise ShardMismatchError(
            f"shard {reader.location} is not the shard {record.name} that the manifest of "
            f"{manifest.collection!r} sealed: its {', '.join(differ)} differ (re-ingested with "
            "other settings, or copied from elsewhere); rebuild with `groundkit shard build`",
            subject=reader.location,
        )
