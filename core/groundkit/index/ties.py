"""Tie keys of one snapshot, fetched from the store once per chunk and then kept.

A snapshot never changes, so neither do its chunks' tie keys; deep result lists (k = 1000)
meet hundreds of equal scores per query, and reading their keys from the store each time
cost more than scoring. The cache is bounded by its number of entries; past the bound it
starts over (answers stay the same, only slower).

Once the tie keys looked up add up to as many as the snapshot has chunks (on snapshots up
to ``RANKS_MAX_CHUNKS``), every chunk is ranked by tie key in one pass, and later ties are
broken by comparing integers. A one-off query never pays for that pass; a long-lived
retriever answering deep queries soon does (adr/0015-bm25-columns-and-tie-ranks.md).
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
"""Largest snapshot ranked whole (0.5 s and 0.8 MB at 100,000 chunks in SQLite; beyond this
size the one pass would stall a query for seconds)."""
_UNRANKED = -1


class CachedTieKeys:
    """Wraps a reader's ``tie_keys`` with a per-snapshot cache; called the same way."""

    def __init__(
        self,
        fetch: Callable[[Sequence[int]], Mapping[int, TieKey]],
        limit: int = DEFAULT_CACHE_ENTRIES,
        *,
        every: Callable[[], Iterable[tuple[int, TieKey]]] | None = None,
        chunk_count: int = 0,
        rank_after: int | None = None,
        ranks_max_chunks: int = RANKS_MAX_CHUNKS,
    ) -> None:
        """``every`` gives every chunk's tie key in one pass; with it, the snapshot is ranked
        once ``rank_after`` keys (default: ``chunk_count``) have been looked up."""
        self._fetch = fetch
        self._limit = limit
        self._known: dict[int, TieKey] = {}
        self._every = every if chunk_count <= ranks_max_chunks else None
        self._rank_after = chunk_count if rank_after is None else rank_after
        self._looked_up = 0
        self._ranks: array[int] | None = None

    @classmethod
    def of(cls, reader: CollectionReader, **options: int) -> CachedTieKeys:
        """The cache for ``reader``'s snapshot (``options``: ``rank_after``,
        ``ranks_max_chunks``)."""
        return cls(
            reader.tie_keys, every=reader.iter_tie_keys, chunk_count=reader.chunk_count, **options
        )

    def __call__(self, keys: Sequence[int]) -> Mapping[int, TieKey]:
        """A mapping that holds the tie key of each of ``keys`` whose records exist (and maybe
        others); a missing record stays missing, so looking it up raises ``KeyError``."""
        known = self._known
        self._looked_up += len(keys)
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
        ``None`` while they are not (or cannot be) made. Equal tie keys are ordered by chunk
        key."""
        if self._ranks is None and self._every is not None:
            if self._looked_up < self._rank_after:
                return None
            found = dict(self._every())
            self._every = None
            ordered = sorted(found, key=lambda key: (found[key], key))
            ranks = array("q", [_UNRANKED]) * (max(found, default=-1) + 1)
            for place, key in enumerate(ordered):
                ranks[key] = place
            self._ranks = ranks
        return self._ranks


def tie_ranks_of(tie_keys: Callable[[Sequence[int]], Mapping[int, TieKey]]) -> array[int] | None:
    """The snapshot-wide tie ranks behind ``tie_keys``, where it is a ``CachedTieKeys`` that
    has (or can make) them."""
    return tie_keys.ranks() if isinstance(tie_keys, CachedTieKeys) else None
