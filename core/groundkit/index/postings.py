"""Per-term postings of one snapshot, read once from the store and kept as compact arrays.

A snapshot never changes, so a term's postings are kept for its lifetime, in a cache bounded
by ``LexicalPlan.postings_cache_postings``.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from groundkit.index.cache import BoundedCache
from groundkit.index.plan import DEFAULT_PLAN, LexicalPlan
from groundkit.store.base import CollectionReader

__all__ = ["PostingList", "PostingsCache"]


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

    def __init__(self, reader: CollectionReader, plan: LexicalPlan = DEFAULT_PLAN) -> None:
        self._reader = reader
        self._lists: BoundedCache[str, PostingList] = BoundedCache(plan.postings_cache_postings)

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
        return self._lists.put(term, found, len(found))
