"""Collection-wide BM25 statistics, for scoring one shard as part of a larger collection.

A shard scored with its own statistics ranks differently from the whole collection; given the
whole collection's chunk count, total length and document frequencies, ``BM25Index`` computes
every term score exactly as one collection over the same corpus would
(adr/0028-sharded-collections-on-ray.md).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["CollectionStats"]


@dataclass(frozen=True, slots=True)
class CollectionStats:
    """The statistics BM25 depends on: ``N``, the sum of chunk lengths and ``df(term)``."""

    chunk_count: int
    total_length: int
    df: Callable[[str], int]
    """The collection-wide document frequency of a term (0 where no chunk holds it)."""
