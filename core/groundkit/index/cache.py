"""The one bounded cache of the lexical index: a dict that starts over when it is full.

A read view never changes, so what is derived from it (postings, term scores, packed terms,
tie keys) can be kept for its lifetime. Each cache is bounded by a cost (postings, bytes or
entries); an entry that would pass the bound clears the cache first. Answers stay the same
after a clear, only slower; starting over needs no bookkeeping on the hot path, unlike LRU.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from types import MappingProxyType
from typing import Generic, TypeVar

__all__ = ["BoundedCache"]

K = TypeVar("K")
V = TypeVar("V")


class BoundedCache(Generic[K, V]):
    """Values by key, at most ``limit`` in total cost; full, it starts over."""

    __slots__ = ("_held", "_items", "get", "holds", "limit")

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._items: dict[K, V] = {}
        self._held = 0
        # the dict's own bound methods, no wrapper per call on the hot paths:
        self.get: Callable[[K], V | None] = self._items.get
        """The value kept for a key, or None."""
        self.holds: Callable[[object], bool] = self._items.__contains__
        """Whether a key is kept (``key in cache``, as a callable for ``filter``)."""

    def __contains__(self, key: object) -> bool:
        return key in self._items

    def __getitem__(self, key: K) -> V:
        return self._items[key]

    def __len__(self) -> int:
        return len(self._items)

    @property
    def held(self) -> int:
        """The total cost of what is kept."""
        return self._held

    def put(self, key: K, value: V, cost: int = 1) -> V:
        """Keep ``value`` under ``key`` (starting over first if it would pass the limit)."""
        if self._held + cost > self.limit:
            self._items.clear()
            self._held = 0
        self._items[key] = value
        self._held += cost
        return value

    def put_many(self, items: Mapping[K, V], keep: Iterable[K] = ()) -> None:
        """Keep new ``items`` at a cost of one each; starting over keeps ``keep``'s entries."""
        if self._held + len(items) > self.limit:
            kept = {key: self._items[key] for key in keep if key in self._items}
            self._items.clear()
            self._items.update(kept)
            self._held = len(kept)
        self._items.update(items)
        self._held += len(items)

    def view(self) -> Mapping[K, V]:
        """A read-only live view of the kept entries."""
        return MappingProxyType(self._items)
