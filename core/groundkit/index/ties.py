"""Tie keys of one snapshot, fetched from the store once per chunk and then kept.

A snapshot never changes, so neither do its chunks' tie keys; deep result lists (k = 1000)
meet hundreds of equal scores per query, and reading their keys from the store each time
cost more than scoring. The cache is bounded by its number of entries; past the bound it
starts over (answers stay the same, only slower).

On collections up to ``RANKS_MAX_CHUNKS`` chunks, the first query that meets a tie also
sorts every chunk by tie key once, so later ties are broken by comparing integers
(adr/0015-bm25-columns-and-tie-ranks.md).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import filterfalse
from types import MappingProxyType

from groundkit.store.base import CollectionReader, TieKey

__all__ = ["CachedTieKeys", "tie_ranks_of"]

DEFAULT_CACHE_ENTRIES = 1 << 20
RANKS_MAX_CHUNKS = 250_000
"""Largest snapshot whose chunks are all ranked by tie key (0.2 s and 2 MB at 100,000
chunks in memory; beyond this size the one-off sort would stall the first query)."""
_UNRANKED = -1


class CachedTieKeys:
    """Wraps a reader's ``tie_keys`` with a per-snapshot cache; called the same way."""

    def __init__(
        self,
        fetch: Callable[[Sequence[int]], Mapping[int, TieKey]],
        limit: int = DEFAULT_CACHE_ENTRIES,
        *,
        all_keys: Callable[[], Iterable[int]] | None = None,
        chunk_count: int = 0,
        ranks_max_chunks: int = RANKS_MAX_CHUNKS,
    ) -> None:
        self._fetch = fetch
        self._limit = limit
        self._known: dict[int, TieKey] = {}
        self._all_keys = all_keys if chunk_count <= ranks_max_chunks else None
        self._ranks: array[int] | None = None

    @classmethod
    def of(
        cls, reader: CollectionReader, *, ranks_max_chunks: int = RANKS_MAX_CHUNKS
    ) -> CachedTieKeys:
        """The cache for ``reader``'s snapshot, able to rank it when small enough."""
        return cls(
            reader.tie_keys,
            all_keys=lambda: (key for key, _ in reader.chunk_lengths()),
            chunk_count=reader.chunk_count,
            ranks_max_chunks=ranks_max_chunks,
        )

    def __call__(self, keys: Sequence[int]) -> Mapping[int, TieKey]:
        """A mapping that holds the tie key of each of ``keys`` whose records exist (and maybe
        others); a missing record stays missing, so looking it up raises ``KeyError``."""
        known = self._known
        missing = list(filterfalse(known.__contains__, keys))
        if missing:
            found = dict(self._fetch(missing))
            if len(known) + len(found) > self._limit:
                found.update((key, known[key]) for key in keys if key in known)
                known.clear()
            known.update(found)
        return MappingProxyType(known)

    def ranks(self) -> array[int] | None:
        """Every chunk key's place in tie-key order (``-1`` where no chunk or record is), or
        ``None`` on a snapshot too large to rank. Computed on the first call."""
        if self._ranks is None and self._all_keys is not None:
            keys = list(self._all_keys())
            self._all_keys = None
            found = self._fetch(keys)
            ranks = array("q", [_UNRANKED]) * (max(keys, default=-1) + 1)
            for place, key in enumerate(sorted(found, key=lambda key: (found[key], key))):
                ranks[key] = place
            self._ranks = ranks
        return self._ranks


def tie_ranks_of(tie_keys: Callable[[Sequence[int]], Mapping[int, TieKey]]) -> array[int] | None:
    """The snapshot-wide tie ranks behind ``tie_keys``, where it is a ``CachedTieKeys`` that
    has (or can make) them."""
    return tie_keys.ranks() if isinstance(tie_keys, CachedTieKeys) else None
