"""Per-term postings of one snapshot, read once from the store and kept as compact arrays.

A snapshot never changes, so a term's postings can be cached for its lifetime. The cache is
bounded by the number of postings it holds; past the bound it starts over (queries stay
correct, only slower).
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from groundkit.store.base import CollectionReader

__all__ = ["PostingList", "PostingsCache"]

DEFAULT_CACHE_POSTINGS = 1 << 26
"""About 64 million postings (roughly 0.8 GB) per snapshot before the cache starts over."""


@dataclass(frozen=True, slots=True)
class PostingList:
    """Chunk keys holding a term, in ascending order, with the term's frequency in each."""

    keys: array[int]
    tfs: array[int]

    def __len__(self) -> int:
        return len(self.keys)


_EMPTY = PostingList(array("q"), array("I"))


class PostingsCache:
    """Fetches postings from a reader on first use of a term and keeps them."""

    def __init__(self, reader: CollectionReader, limit: int = DEFAULT_CACHE_POSTINGS) -> None:
        self._reader = reader
        self._limit = limit
        self._held = 0
        self._lists: dict[str, PostingList] = {}

    def get(self, term: str) -> PostingList:
        found = self._lists.get(term)
        if found is not None:
            return found
        pairs = sorted(self._reader.postings(term))
        if not pairs:
            found = _EMPTY
        else:
            found = PostingList(
                array("q", [k for k, _ in pairs]), array("I", [t for _, t in pairs])
            )
        if self._held + len(found) > self._limit:
            self._lists.clear()
            self._held = 0
        self._lists[term] = found
        self._held += len(found)
        return found
