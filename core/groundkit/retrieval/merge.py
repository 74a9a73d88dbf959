"""Merging shards' ranked lists into one: best score first, equal scores by tie key.

The tie key (document content hash, chunk index, source) is the one a single collection
breaks ties with, so the merged list is the single collection's ranking: each shard's top
``k`` holds every chunk of the global top ``k`` that lives in it.
"""

from __future__ import annotations

import heapq
from collections.abc import Iterable, Sequence
from itertools import chain
from typing import NamedTuple

from groundkit.store.protocols import TieKey

__all__ = ["NO_TIE", "ShardHit", "merge_hits", "order_key"]

NO_TIE: TieKey = ("", -1, "")
"""The tie key of a hit no merge or fusion will order (a one-shard search's bm25 or dense list,
already in its final order): looking the real one up would cost a tenth of the search."""


class ShardHit(NamedTuple):
    """A chunk found in a shard: its score, tie key, shard number and key in that shard."""

    score: float
    tie: TieKey
    shard: int
    key: int


def order_key(hit: ShardHit) -> tuple[float, TieKey]:
    """Sort key: best score first, then the content-derived tie key."""
    return (-hit.score, hit.tie)


def merge_hits(lists: Iterable[Sequence[ShardHit]], k: int) -> list[ShardHit]:
    """The ``k`` best hits of several shards' lists (each already best first, in this
    order: one list is its own merge)."""
    lists = list(lists)
    if k <= 0:
        return []
    if len(lists) == 1:  # each list's own order is final: its ties may be NO_TIE
        return list(lists[0][:k])
    return heapq.nsmallest(k, chain.from_iterable(lists), key=order_key)
