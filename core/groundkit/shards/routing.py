"""Which shard a document lives in: a content-derived key, the same on every platform.

A document is routed by its source path (``sha256`` of it, never ``hash()``, which differs
between processes and on wasm32), so a changed file is replaced in the shard that holds it
and a removed one is removed there: routing by content would scatter a file's versions.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

__all__ = ["ROUTING", "shard_of", "shard_selector"]

ROUTING = "sha256(source) mod shards"
"""The routing rule, recorded in the manifest so that a reader can check it."""


def shard_of(source: str, shards: int) -> int:
    """The shard (0-based) of the document at ``source`` in a collection of ``shards``."""
    if shards < 1:
        raise ValueError(f"shards must be >= 1, got {shards}")
    digest = hashlib.sha256(b"groundkit:shard\0" + source.encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big") % shards


def shard_selector(shard: int, shards: int) -> Callable[[str], bool]:
    """A predicate admitting the sources routed to ``shard`` (``Indexer.ingest(select=...)``)."""
    if not 0 <= shard < shards:
        raise ValueError(f"shard {shard} is not in 0..{shards - 1}")
    return lambda source: shard_of(source, shards) == shard
