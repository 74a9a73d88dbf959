"""The map and reduce of BM25's statistics over shards: pure functions, no engine.

Each shard maps to its chunk count, total length and the document frequencies of the terms
asked for; the reduce sums them. Summed, they are exactly the statistics of one collection
over the union of the shards' documents, so every shard can score as that collection would
(``BM25Index(stats=...)``). Chunk counts and lengths are reduced once per set of read views;
document frequencies per query, for the query's terms only (no shard holds the vocabulary
of the others).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from groundkit.errors import ShardUnavailableError
from groundkit.index.bm25 import bm25_idf
from groundkit.index.postings import blend_members
from groundkit.index.stats import CollectionStats

__all__ = [
    "ShardStatistics",
    "collection_stats",
    "idf_of",
    "map_statistics",
    "reduce_statistics",
]


@dataclass(frozen=True, slots=True)
class ShardStatistics:
    """Chunk count, total length and document frequencies (of some terms) of a shard, or of
    several shards reduced into one."""

    chunk_count: int
    total_length: int
    df: Mapping[str, int] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "chunk_count": self.chunk_count,
            "total_length": self.total_length,
            "df": dict(sorted(self.df.items())),
        }


def map_statistics(
    chunk_count: int, total_length: int, df: Callable[[str], int], terms: Iterable[str]
) -> ShardStatistics:
    """One shard's statistics for ``terms`` (``df``: the shard's own document frequency)."""
    return ShardStatistics(
        chunk_count, total_length, {term: df(term) for term in sorted(set(terms))}
    )


def reduce_statistics(parts: Iterable[ShardStatistics]) -> ShardStatistics:
    """The sum of shards' statistics: those of one collection holding all their chunks.

    Every part must carry the same terms: a part without a term would silently lower its
    document frequency, so that is refused.
    """
    parts = list(parts)
    chunk_count = sum(part.chunk_count for part in parts)
    total_length = sum(part.total_length for part in parts)
    terms = set(parts[0].df) if parts else set()
    df: dict[str, int] = dict.fromkeys(sorted(terms), 0)
    for number, part in enumerate(parts):
        if set(part.df) != terms:
            raise ShardUnavailableError(
                f"shard statistics {number} cover other terms than the rest; "
                "the reduce refuses to sum partial document frequencies"
            )
        for term, count in part.df.items():
            df[term] += count
    return ShardStatistics(chunk_count, total_length, df)


def collection_stats(
    chunk_count: int, total_length: int, df: Callable[[str], int]
) -> CollectionStats:
    """The ``BM25Index`` hook for a shard scored as part of the whole collection."""
    return CollectionStats(chunk_count=chunk_count, total_length=total_length, df=df)


def idf_of(reduced: ShardStatistics) -> Callable[[str], float]:
    """Each term's BM25 idf over the reduced statistics (a blended term's at its weight), as
    one collection's ``BM25Index.term_idf`` gives it."""

    def idf(term: str) -> float:
        value = bm25_idf(reduced.chunk_count, reduced.df.get(term, 0))
        blended = blend_members(term)
        return value if blended is None else blended[0] * value

    return idf
