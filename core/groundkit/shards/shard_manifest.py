"""The sharded collection's manifest: ``<index_dir>/<name>/shards.json`` beside its shards.

A sharded collection is a folder holding N ordinary collections (``shard-0000`` ...) and this
manifest: the routing rule, the analyzer and embedding identities every shard shares, and each
shard's generation, chunk count, total length and content stamp when the manifest was sealed.
A shard whose generation differs from its record was written outside a sharded ingest (or one
that did not finish): opening refuses it rather than mixing statistics of different read views.
The manifest carries its shard count and a seal over its own JSON (``groundkit.shards.seal``):
an edited, truncated or emptied manifest is a damaged collection (``ShardMismatchError``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.collection import MANIFEST_FILE, collection_file
from groundkit.config import DEFAULT_INDEX_DIR
from groundkit.errors import CollectionNotFoundError, ShardMismatchError, ShardUnavailableError
from groundkit.shards.routing import ROUTING
from groundkit.shards.seal import manifest_seal

__all__ = [
    "FORMAT",
    "MANIFEST_FILE",
    "ShardManifest",
    "ShardRecord",
    "load_manifest",
    "save_manifest",
    "shard_name",
    "shards_dir",
]

FORMAT = 2
"""2 added each shard's content stamp, the shard count and the seal (adr/0042)."""


@dataclass(frozen=True, slots=True)
class ShardRecord:
    """One shard as the manifest was sealed: its name, read view statistics and content stamp."""

    name: str
    generation: int
    chunk_count: int
    total_length: int
    documents: int
    content: str
    """SHA-256 of the shard's sorted ``document_id content_hash`` lines (``content_stamp``)."""


@dataclass(frozen=True, slots=True)
class ShardManifest:
    """Shards, routing, identities and the reduced statistics of a sharded collection."""

    collection: str
    shards: tuple[ShardRecord, ...]
    analyzer: dict[str, Any] | None
    embedding: str | None
    """The embedding identity JSON every shard shares (None: lexical only)."""
    generation: int = 1
    """Bumped by each sealed ingest."""
    routing: str = ROUTING

    @property
    def chunk_count(self) -> int:
        return sum(shard.chunk_count for shard in self.shards)

    @property
    def total_length(self) -> int:
        return sum(shard.total_length for shard in self.shards)

    @property
    def reference_shard(self) -> int:
        """The first shard holding chunks: it answers for all (default mode, similarity floor),
        since a shard the routing left empty has no dense side."""
        return next((n for n, shard in enumerate(self.shards) if shard.chunk_count), 0)

    def to_dict(self) -> dict[str, Any]:
        data = self._body()
        data["seal"] = manifest_seal(data)
        return data

    def _body(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "collection": self.collection,
            "generation": self.generation,
            "routing": self.routing,
            "analyzer": self.analyzer,
            "embedding": self.embedding,
            "chunk_count": self.chunk_count,
            "total_length": self.total_length,
            "shard_count": len(self.shards),
            "shards": [
                {
                    "name": s.name,
                    "generation": s.generation,
                    "chunk_count": s.chunk_count,
                    "total_length": s.total_length,
                    "documents": s.documents,
                    "content": s.content,
                }
                for s in self.shards
            ],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, subject: str) -> ShardManifest:
        """The manifest ``data`` holds; ``ShardUnavailableError`` for one this version does not
        read, ``ShardMismatchError`` for one altered since it was sealed."""
        try:
            if data["format"] != FORMAT or data["routing"] != ROUTING:
                raise ValueError(f"format {data['format']!r}, routing {data['routing']!r}")
            manifest = cls(
                collection=str(data["collection"]),
                shards=tuple(
                    ShardRecord(
                        str(s["name"]),
                        int(s["generation"]),
                        int(s["chunk_count"]),
                        int(s["total_length"]),
                        int(s["documents"]),
                        str(s["content"]),
                    )
                    for s in data["shards"]
                ),
                analyzer=data["analyzer"],
                embedding=data["embedding"],
                generation=int(data["generation"]),
            )
            sealed, count = data["seal"], int(data["shard_count"])
        except (KeyError, TypeError, ValueError) as exc:
            raise ShardUnavailableError(
                f"{subject}: not a shard manifest this groundkit reads ({exc}); remove it and "
                "re-run `groundkit shard build PATH --shards N` (unchanged files are kept)",
                subject=subject,
            ) from None
        names = [shard.name for shard in manifest.shards]
        if sealed != manifest_seal(data):
            raise ShardMismatchError(
                f"{subject}: the shard manifest was altered after it was sealed (its seal does "
                "not match); restore it or rebuild with `groundkit shard build`",
                subject=subject,
            )
        if not names or names != [shard_name(n) for n in range(count)]:
            raise ShardMismatchError(
                f"{subject}: the shard manifest lists shards {names[:5]} but records {count}; "
                "a sharded collection never answers from some of its shards: rebuild it",
                subject=subject,
            )
        return manifest


def shard_name(shard: int) -> str:
    """The collection name of shard ``shard`` inside the sharded collection's folder."""
    return f"shard-{shard:04d}"


def shards_dir(index_dir: str | Path, collection: str) -> Path:
    """The folder of a sharded collection (the name is checked like any collection's)."""
    return collection_file(index_dir, collection).parent


def load_manifest(index_dir: str | Path = DEFAULT_INDEX_DIR, collection: str = "") -> ShardManifest:
    """The manifest of sharded collection ``collection`` (``CollectionNotFoundError`` if none)."""
    path = shards_dir(index_dir, collection) / MANIFEST_FILE
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CollectionNotFoundError(
            f"no sharded collection {collection!r} under {index_dir} ({path} is missing); "
            "build one with `groundkit shard build PATH --shards N`",
            subject=str(path),
        ) from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise ShardUnavailableError(
            f"{path}: the shard manifest is not JSON ({exc})", subject=str(path)
        ) from None
    if not isinstance(data, dict):
        raise ShardUnavailableError(
            f"{path}: the shard manifest is not an object", subject=str(path)
        )
    manifest = ShardManifest.from_dict(data, subject=str(path))
    listed = {shard.name for shard in manifest.shards}
    extra = sorted(
        p.name for p in path.parent.glob("shard-*") if p.name not in listed and p.is_dir()
    )
    if extra:
        raise ShardMismatchError(
            f"{path}: the folder holds shards the manifest does not list ({', '.join(extra[:5])}); "
            "a sharded collection never answers from some of its shards: rebuild it",
            subject=str(path),
        )
    return manifest


def save_manifest(index_dir: str | Path, manifest: ShardManifest) -> Path:
    """Write the manifest atomically (a reader sees the old one or the new one, never half)."""
    folder = shards_dir(index_dir, manifest.collection)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / MANIFEST_FILE
    temporary = folder / f".{MANIFEST_FILE}.{os.getpid()}.tmp"
    temporary.write_text(json.dumps(manifest.to_dict(), indent=2, sort_keys=True) + "\n", "utf-8")
    os.replace(temporary, path)
    return path
