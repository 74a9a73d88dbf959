"""Scatter-gather over shards: the one sharded search, whatever carries the calls.

``ShardGroup`` is what the gather needs from the shards, one list entry per shard, in shard
order: the in-process group calls ``ShardSearcher``s in a loop, the Ray group
(``groundkit_ray``) sends the same calls to replicas at once. The gather reduces the query
terms' statistics, has every shard score with them, merges by (score, tie key), and joins
only the kept hits to their records. BM25 hits are bit-identical to one collection's; dense
similarities need no statistics; hybrid fuses the two merged lists as one collection would.
"""

from __future__ import annotations

import math
import time
from collections.abc import Mapping, Sequence
from typing import Protocol, TypeVar

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import BM25Params
from groundkit.contracts import SearchResponse, SearchResult, SearchTrace
from groundkit.errors import ShardUnavailableError
from groundkit.retrieval.fusion import reciprocal_rank_fusion
from groundkit.retrieval.join import with_highlights
from groundkit.retrieval.request import (
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
    hybrid_options,
    leg_depth_for,
    rerank_options,
    validate_request,
)
from groundkit.retrieval.rerank import Reranker, checked_rerank, rerank_candidates
from groundkit.shards.merge import ShardHit, merge_hits
from groundkit.shards.stats import ShardStatistics, reduce_statistics
from groundkit.store.base import TieKey

__all__ = ["LocalShards", "ShardGroup", "sharded_search"]

T = TypeVar("T")
_STAGES = {"bm25": "bm25", "dense": "dense", "hybrid": "fusion"}
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

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor of a dense or hybrid search, and its source (adr/0024)."""
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
    ) -> list[tuple[list[ShardHit], str]]: ...

    def dense(
        self, query: str, mode: str, k: int, min_score: float | None, where: SearchFilter | None
    ) -> list[list[ShardHit]]: ...

    def results(self, ranked: Mapping[int, Ranked]) -> dict[int, list[SearchResult]]: ...


class _Searcher(Protocol):
    @property
    def default_mode(self) -> SearchMode: ...
    def floor(self, mode: str, given: float | None) -> tuple[float, str]: ...
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
    ) -> tuple[list[ShardHit], str]: ...
    def dense_hits(
        self,
        query: str,
        mode: str,
        k: int,
        *,
        min_score: float | None,
        where: SearchFilter | None = None,
    ) -> list[ShardHit]: ...
    def results(self, ranked: Ranked) -> list[SearchResult]: ...


class LocalShards:
    """The shards of one process (``ShardSearcher``s), called one after another."""

    def __init__(self, searchers: Sequence[_Searcher], *, reference: int = 0) -> None:
        """``reference``: the shard that answers ``default_mode`` and ``floor`` for all
        (``ShardManifest.reference_shard``)."""
        self._searchers = list(searchers)
        self._reference = reference

    @property
    def size(self) -> int:
        return len(self._searchers)

    @property
    def default_mode(self) -> SearchMode:
        return self._searchers[self._reference].default_mode if self._searchers else "bm25"

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        if not self._searchers:
            raise ShardUnavailableError("the sharded collection has no shards open")
        return self._searchers[self._reference].floor(mode, given)

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
    ) -> list[tuple[list[ShardHit], str]]:
        return [
            searcher.lexical(terms, k, df, score_threshold=score_threshold, where=where)
            for searcher in self._searchers
        ]

    def dense(
        self, query: str, mode: str, k: int, min_score: float | None, where: SearchFilter | None
    ) -> list[list[ShardHit]]:
        return [
            searcher.dense_hits(query, mode, k, min_score=min_score, where=where)
            for searcher in self._searchers
        ]

    def results(self, ranked: Mapping[int, Ranked]) -> dict[int, list[SearchResult]]:
        return {shard: self._searchers[shard].results(rows) for shard, rows in ranked.items()}


def sharded_search(
    shards: ShardGroup,
    analyzer: Analyzer,
    query: str,
    top_k: int | None = None,
    mode: SearchMode | None = None,
    *,
    expected: ShardStatistics,
    generation: int,
    bm25: BM25Params | None = None,
    reranker: Reranker | None = None,
    score_threshold: float | None = None,
    hybrid: HybridOptions | None = None,
    rerank: bool | RerankOptions = False,
    where: SearchFilter | None = None,
    rrf_k: int | None = None,
    depth: int | None = None,
    weights: tuple[float, float] | None = None,
    min_similarity: float | None = None,
    rerank_depth: int | None = None,
    highlight: bool = True,
) -> SearchResponse:
    """The ``top_k`` best passages of the sharded collection, as ``Retriever.search`` of one
    collection over the same corpus returns them (the same arguments, the same meaning).

    ``where`` is applied in every shard before the merge (each shard admits exactly the chunks
    one collection would); ``rerank`` runs once, here, over the merged candidates.
    ``expected``: the manifest's chunk count and total length; a shard whose statistics do
    not add up to them fails closed (``ShardUnavailableError``), as does a missing shard.
    """
    started = time.perf_counter()
    asked = mode is not None
    mode = shards.default_mode if mode is None else mode
    k = validate_request(query, top_k, mode, score_threshold)
    options = hybrid_options(mode, hybrid, rrf_k, depth, weights, min_similarity)
    reranking = rerank_options(rerank, rerank_depth)
    want = rerank_candidates(reranker, reranking, k)
    leg_depth = want if options is None else leg_depth_for(options.depth, want)
    floor, floor_source = -math.inf, None
    if mode != "bm25":  # dense abstains under the floor (adr/0024)
        given = options.min_similarity if options is not None else min_similarity
        floor, floor_source = shards.floor(mode, given)
    params = bm25 or BM25Params()
    trace = SearchTrace(
        stage=_STAGES[mode],
        mode=mode,
        generation=generation,
        mode_source="search" if asked else "collection",
    )
    if where is not None:
        trace.filter = {**where.to_dict(), "chunks": sum(_all(shards, shards.admitted(where)))}
    terms = analyzer.terms(query)
    lexical: list[ShardHit] = []
    if mode != "dense":
        reduced = reduce_statistics(_all(shards, shards.statistics(terms)))
        if (reduced.chunk_count, reduced.total_length) != (
            expected.chunk_count,
            expected.total_length,
        ):
            raise ShardUnavailableError(
                f"the shards hold {reduced.chunk_count} chunks of total length "
                f"{reduced.total_length}, the manifest {expected.chunk_count} and "
                f"{expected.total_length}: a shard is missing or out of step; refusing to answer"
            )
        threshold = score_threshold if mode == "bm25" else None
        answers = _all(shards, shards.lexical(terms, leg_depth, reduced.df, threshold, where))
        lexical = merge_hits([hits for hits, _ in answers], leg_depth)
        trace.query_terms = len(terms)
        trace.path = "sharded:" + ",".join(sorted({path for _, path in answers}))
        trace.bm25 = {"k1": params.k1, "b": params.b}
    ranked: list[tuple[ShardHit, float]]
    if mode == "bm25":
        ranked = [(hit, hit.score) for hit in lexical]
    elif mode == "dense":
        lowest = floor if score_threshold is None else max(floor, score_threshold)
        dense = _all(shards, shards.dense(query, mode, want, lowest, where))
        ranked = [(hit, hit.score) for hit in merge_hits(dense, want)]
        trace.abstained = not ranked
    else:
        assert options is not None
        per_shard = _all(shards, shards.dense(query, mode, leg_depth, floor, where))
        dense_hits = merge_hits(per_shard, leg_depth)
        trace.legs = {"bm25": len(lexical), "dense": len(dense_hits)}
        trace.dense_best = dense_hits[0].score if dense_hits else None
        trace.fusion = {
            "rrf_k": options.rrf_k,
            "depth": leg_depth,
            "weights": list(options.weights),
        }
        trace.abstained = not lexical and not dense_hits
        ranked = [] if trace.abstained else _fuse(lexical, dense_hits, options)
        cut = -math.inf if score_threshold is None else score_threshold
        ranked = [(hit, score) for hit, score in ranked if score >= cut][:want]
    if mode != "bm25":
        trace.min_similarity = floor
        trace.floor_source = floor_source
    trace.timings_ms["shards"] = round((time.perf_counter() - started) * 1000, 3)
    results = _join(shards, ranked)
    if reranking is not None:
        assert reranker is not None  # rerank_candidates refused the search otherwise
        results = checked_rerank(reranker, query, results, k)
        trace.stage = "rerank"
        trace.rerank_depth = want
    if highlight and terms:
        results = with_highlights(analyzer, terms, results)
    trace.score_threshold = score_threshold
    trace.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
    return SearchResponse(
        query=query, results=tuple(results), metadata=trace.to_dict(), trace=trace
    )


def _all(shards: ShardGroup, answers: list[T]) -> list[T]:
    """``answers``, refused unless there is one per shard (never a shorter list)."""
    if len(answers) != shards.size:
        raise ShardUnavailableError(
            f"{len(answers)} of {shards.size} shards answered; refusing a partial ranking"
        )
    return answers


def _fuse(
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


def _join(shards: ShardGroup, ranked: list[tuple[ShardHit, float]]) -> list[SearchResult]:
    """Each kept hit's record and citation, fetched from its own shard, in global order."""
    by_shard: dict[int, list[tuple[int, float, int]]] = {}
    for rank, (hit, score) in enumerate(ranked, start=1):
        by_shard.setdefault(hit.shard, []).append((hit.key, score, rank))
    found = shards.results(by_shard)
    out: list[SearchResult] = []
    for shard in sorted(found):
        out.extend(found[shard])
    if len(out) != len(ranked):
        raise ShardUnavailableError(
            f"{len(out)} of {len(ranked)} results came back from the shards; refusing"
        )
    out.sort(key=lambda result: result.metadata["rank"])
    return out
