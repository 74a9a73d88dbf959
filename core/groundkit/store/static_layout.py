"""The file layout of a static collection (``groundkit.store.static``): its format number,
block sizes and paths, and how every file but ``vectors.bin`` is encoded. Shared by the
exporter, the reader and, through the head, the page's JS path."""

from __future__ import annotations

import json
import zlib
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

__all__ = [
    "BLOCK",
    "FORMAT",
    "HEAD",
    "TERMS_BLOCK",
    "TEXT_BLOCK",
    "block_path",
    "pack",
    "range_shard_of",
    "shard_of",
    "shard_path",
    "terms_path",
    "texts_path",
    "words_path",
]

FORMAT = 1
HEAD = "collection.bin"
BLOCK = 128
"""Chunk records per ``chunks/<block>.bin`` file."""
TERMS_BLOCK = 4096
"""Terms per ``terms/<block>.bin`` file (about 15 KB deflated for English stems)."""
TEXT_BLOCK = 16
"""Chunk records with their texts per ``texts/<block>.bin`` file (about 3 KB deflated for
1,000-character chunks): the page's JS path reads a result there, one small file, instead of
its ``chunks/`` block and its whole source file."""


def shard_of(term: str, shards: int) -> int:
    """The postings shard holding ``term`` (crc32: the same on every platform, unlike hash())."""
    return zlib.crc32(term.encode("utf-8")) % shards


def range_shard_of(term: str, firsts: Sequence[str]) -> int:
    """The postings shard holding ``term`` where shards hold ranges of terms (adr/0062)."""
    return max(bisect_right(firsts, term) - 1, 0)


def shard_path(shard: int) -> str:
    return f"postings/{shard:04x}.bin"


def block_path(block: int) -> str:
    return f"chunks/{block:04x}.bin"


def terms_path(block: int) -> str:
    return f"terms/{block:04x}.bin"


def words_path(block: int) -> str:
    return f"words/{block}.bin"


def texts_path(block: int) -> str:
    return f"texts/{block:04x}.bin"


def pack(value: Any) -> bytes:
    """Deflated compact JSON: the encoding of every file but ``vectors.bin``."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    return zlib.compress(text.encode("utf-8"), 9)
