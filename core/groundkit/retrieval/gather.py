"""Scatter-gather over shards: what the one sharded search needs, whatever carries the calls.

``ShardGroup`` is what ``retrieval.searcher.Searcher`` needs from the shards, one list entry
per shard, in shard order: the in-process group calls ``ShardSearcher``s in a loop, the Ray
group (``groundkit_ray``) sends the same calls to replicas at once. The pure steps around
them: every shard answered (``all_answered``), hybrid fusion of merged lists (``fuse_hits``),
and the join of the kept hits in their own shards (``join_hits``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from groundkit.contracts import Citation, SearchResult
from groundkit.errors import ShardUnavailableError
from groundkit.retrieval.citations import Verification
from groundkit.retrieval.fusion import reciprocal_rank_fusion
from groundkit.retrieval.merge import ShardHit
from groundkit.retrieval.request import (
    HybridOptions,
    SearchFilter,
    SearchMode,
)
from groundkit.retrieval.shard_stats import ShardStatistics
from groundkit.store.protocols import TieKey

__all__ = ["LocalShards", "ShardGroup", "all_answered", "fuse_hits", "join_hits", "store_names"]

T = TypeVar("T")
Ranked = Sequence[tuple[int, float, int]]
"""(chunk key, score, global rank) triples of one shard."""


class ShardGroup(Protocol):
    """Every shard of one sharded collection; each call answers for all of them, in order."""

    @property
    def size(self) -> int: ...

    @property
    def default_mode(self) -> SearchMode:
        """The mode of a search that names none (as ``Retriever.default_mode``)."""
        ...

    def floors(
        self, mode: str, given: float | None, shards: Sequence[int]
    ) -> list[tuple[float, str]]:
        """The similarity floor of a dense or hybrid search, and its source (adr/0024), as
        each of ``shards`` resolves it."""
        ...

    def lexical_shares(self, given: float | None, shards: Sequence[int]) -> list[tuple[float, str]]:
        """Hybrid's lexical evidence bar, and its source (adr/0049), as each of ``shards``
        resolves it."""
        ...

    def lexical_bars(self, shards: Sequence[int]) -> list[tuple[float | None, str]]:
        """bm25's lexical evidence bar (None: no abstention), and its source (adr/0060), as
        each of ``shards`` resolves it."""
        ...

    def admitted(self, where: SearchFilter) -> list[int]:
        """How many chunks ``where`` admits in each shard."""
        ...

    def statistics(self, terms: Sequence[str]) -> list[ShardStatistics]: ...

    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        score_threshold: float | None,
        where: SearchFilter | None,
        ties: bool = True,
    ) -> list[tuple[list[ShardHit], str]]:
        """Each shard's best BM25 hits and the scoring path that found them; ``ties``: with
        their tie keys (a merge of several lists, or a fusion, orders by them)."""
        ...

    def dense(
        self,
        query: str,
        mode: str,
        k: int,
        min_score: float | None,
        where: SearchFilter | None,
        ties: bool = True,
    ) -> list[tuple[list[ShardHit], str | None]]:
        """Each shard's most similar chunks and the vector store that found them."""
        ...

    def results(self, ranked: Mapping[int, Ranked]) -> dict[int, list[SearchResult]]: ...

    def verify(self, shard: int, citation: Citation, document_id: str) -> Verification:
        """``citation`` (of document ``document_id``, held by ``shard``) re-read from its
        source, where that shard's store says the source lives."""
        ...


class _Searcher(Protocol):
    @property
    def default_mode(self) -> SearchMode: ...
    def floor(self, mode: str, given: float | None) -> tuple[float, str]: ...
    def lexical_share(self, given: float | None) -> tuple[float, str]: ...
    def lexical_bar(self) -> tuple[float | None, str]: ...
    def admitted(self, where: SearchFilter) -> int: ...
    def statistics(self, terms: Sequence[str]) -> ShardStatistics: ...
    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        *,
        score_threshold: float | None = None,
        where: SearchFilter | None = None,
        ties: bool = True,
    ) -> tuple[list[ShardHit], str]: ...
    def dense_hits(
        self,
        query: str,
        mode: str,
        k: int,
        *,
        min_score: float | None,
        where: SearchFilter | None = None,
        ties: bool = True,
    ) -> tuple[list[ShardHit], str | None]: ...
    def results(self, ranked: Ranked) -> list[SearchResult]: ...
    def verify(self, citation: Citation, document_id: str) -> Verification: ...


class LocalShards:
    """The shards of one process (``ShardSearcher``s), called one after another."""

    def __init__(self, searchers: Sequence[_Searcher], *, reference: int = 0) -> None:
        """``reference``: the shard that answers ``default_mode`` for all
        (``ShardManifest.reference_shard``)."""
        self._searchers = list(searchers)
        self._reference = reference

    @property
    def size(self) -> int:
        return len(self._searchers)

    @property
    def default_mode(self) -> SearchMode:
        return self._searchers[self._reference].default_mode if self._searchers else "bm25"

    def floors(
        self, mode: str, given: float | None, shards: Sequence[int]
    ) -> list[tuple[float, str]]:
        if not self._searchers:
            raise ShardUnavailableError("the sharded collection has no shards open")
        return [self._searchers[shard].floor(mode, given) for shard in shards]

    def lexical_shares(self, given: float | None, shards: Sequence[int]) -> list[tuple[float, str]]:
        if not self._searchers:
            raise ShardUnavailableError("the sharded collection has no shards open")
        return [self._searchers[shard].lexical_share(given) for shard in shards]

    def lexical_bars(self, shards: Sequence[int]) -> list[tuple[float | None, str]]:
        if not self._searchers:
            raise ShardUnavailableError("the sharded collection has no shards open")
        return [self._searchers[shard].lexical_bar() for shard in shards]

    def admitted(self, where: SearchFilter) -> list[int]:
        return [searcher.admitted(where) for searcher in self._searchers]

    def statistics(self, terms: Sequence[str]) -> list[ShardStatistics]:
        return [searcher.statistics(terms) for searcher in self._searchers]

    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        score_threshold: float | None,
        where: SearchFilter | None,
        ties: bool = True,
    ) -> list[tuple[list[ShardHit], str]]:
        return [
            searcher.lexical(terms, k, df, score_threshold=score_threshold, where=where, ties=ties)
            for searcher in self._searchers
        ]

    def dense(
        self,
        query: str,
        mode: str,
        k: int,
        min_score: float | None,
        where: SearchFilter | None,
        ties: bool = True,
    ) -> list[tuple[list[ShardHit], str | None]]:
        return [
            searcher.dense_hits(query, mode, k, min_score=min_score, where=where, ties=ties)
            for searcher in self._searchers
        ]

    def results(self, ranked: Mapping[int, Ranked]) -> dict[int, list[SearchResult]]:
        return {shard: self._searchers[shard].results(rows) for shard, rows in ranked.items()}

    def verify(self, shard: int, citation: Citation, document_id: str) -> Verification:
        return self._searchers[shard].verify(citation, document_id)


def all_answered(answers: list[T], asked: int) -> list[T]:
    """``answers``, refused unless each of the ``asked`` shards gave one (never a shorter
    list)."""
    if len(answers) != asked:
        raise ShardUnavailableError(
            f"{len(answers)} of {asked} shards answered; refusing a partial answer"
        )
    return answers


def fuse_hits(
    lexical: list[ShardHit], dense: list[ShardHit], options: HybridOptions
) -> list[tuple[ShardHit, float]]:
    ties: dict[tuple[int, int], TieKey] = {(h.shard, h.key): h.tie for h in lexical + dense}
    hits = {(h.shard, h.key): h for h in lexical + dense}
    fused = reciprocal_rank_fusion(
        [
            [((h.shard, h.key), h.score) for h in lexical],
            [((h.shard, h.key), h.score) for h in dense],
        ],
        tie_keys=lambda items: ties,
        rrf_k=options.rrf_k,
        weights=options.weights,
    )
    return [(hits[item], score) for item, score in fused]


def join_hits(
    shards: ShardGroup, hits: Sequence[ShardHit], scores: Sequence[float] | None = None
) -> list[SearchResult]:
    """Each kept hit's record and citation, fetched from its own shard, in the order of
    ``hits``, with ``scores`` (fused ones) or each hit's own."""
    by_shard: dict[int, list[tuple[int, float, int]]] = {}
    if shards.size == 1 and scores is None:  # one shard: its rows in order, no grouping
        rows = [(hit.key, hit.score, rank) for rank, hit in enumerate(hits, start=1)]
        by_shard = {0: rows} if rows else {}
    else:
        given = [hit.score for hit in hits] if scores is None else scores
        for rank, (hit, score) in enumerate(zip(hits, given, strict=True), start=1):
            by_shard.setdefault(hit.shard, []).append((hit.key, score, rank))
    found = shards.results(by_shard)
    out: list[SearchResult] = []
    for shard in sorted(found):
        out.extend(found[shard])
    if len(out) != len(hits):
        raise ShardUnavailableError(
            f"{len(out)} of {len(hits)} results came back from the shards; refusing"
        )
    if len(found) > 1:  # one shard's come back in the order asked
        out.sort(key=lambda result: result.metadata["rank"])
    return out


def store_names(answers: Sequence[tuple[list[ShardHit], str | None]]) -> str | None:
    """The vector store the shards searched (one name, as one collection's trace gives;
    comma-joined if shards were opened with different ones)."""
    names = sorted({store for _, store in answers if store is not None})
    return ",".join(names) if names else None
