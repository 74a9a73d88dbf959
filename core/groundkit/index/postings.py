"""Per-term postings of one read view, read once from the store and kept as compact arrays.

A read view never changes, so a term's postings are kept for its lifetime, in a cache bounded
by ``LexicalPlan.postings_cache_postings``.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass

from groundkit.index.cache import BoundedCache
from groundkit.index.lexical_plan import DEFAULT_PLAN, LexicalPlan
from groundkit.store.protocols import CollectionReader

__all__ = ["BLEND", "PostingList", "PostingsCache", "blend_members"]

BLEND = "\x00"
"""Starts a blended term's key: ``BLEND weight BLEND member BLEND member ...`` (no analyzed
term holds a NUL, so a key never names a real term)."""


def blend_members(term: str) -> tuple[float, tuple[str, ...]] | None:
    """The weight and member terms of a blended term's key; None for a real term."""
    if not term.startswith(BLEND):
        return None
    weight, *members = term[1:].split(BLEND)
    return float(weight), tuple(members)


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
        blended = blend_members(term)
        if blended is None:
            pairs = sorted(self._reader.postings(term))
        else:  # one list: each chunk's frequencies of the members summed (Lucene's SynonymQuery)
            summed: dict[int, int] = {}
            for member in blended[1]:
                got = self.get(member)
                for key, tf in zip(got.keys, got.tfs, strict=True):
                    summed[key] = summed.get(key, 0) + tf
            pairs = sorted(summed.items())
        if not pairs:
            found = _EMPTY
        else:
            found = PostingList(
                array("q", [k for k, _ in pairs]), array("I", [t for _, t in pairs])
            )
        return self._lists.put(term, found, len(found))
