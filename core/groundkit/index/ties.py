"""Tie keys of one snapshot, fetched from the store once per chunk and then kept.

A snapshot never changes, so neither do its chunks' tie keys; deep result lists (k = 1000)
meet hundreds of equal scores per query, and reading their keys from the store each time
cost more than scoring. The cache is bounded by its number of entries; past the bound it
starts over (answers stay the same, only slower).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from itertools import filterfalse
from types import MappingProxyType

from groundkit.store.base import TieKey

__all__ = ["CachedTieKeys"]

DEFAULT_CACHE_ENTRIES = 1 << 20


class CachedTieKeys:
    """Wraps a reader's ``tie_keys`` with a per-snapshot cache; called the same way."""

    def __init__(
        self,
        fetch: Callable[[Sequence[int]], Mapping[int, TieKey]],
        limit: int = DEFAULT_CACHE_ENTRIES,
    ) -> None:
        self._fetch = fetch
        self._limit = limit
        self._known: dict[int, TieKey] = {}

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
