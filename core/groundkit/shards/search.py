"""``ShardedSearch``: the one sharded search, over whatever carries the calls to the shards.

``ShardedRetriever`` (shards opened in this process) and ``groundkit_ray``'s tool (shards on
Ray Serve replicas) are both this class over their own ``ShardGroup``; neither has a search
of its own. The search reduces the query terms' statistics, has every shard score with them
(filtered there, before the merge), merges by (score, tie key), joins only the kept hits to
their records, and reranks the merged candidates once: BM25 hits are bit-identical to one
collection's; dense similarities need no statistics; hybrid fuses the two merged lists as
one collection would.
"""

from __future__ import annotations

import math
import time

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import BM25Params
from groundkit.contracts import SearchResponse, SearchResult
from groundkit.errors import ConfigurationError, ShardUnavailableError
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import bm25_idf
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval.abstention import dense_has_evidence, lexical_share
from groundkit.retrieval.citations import Verification
from groundkit.retrieval.dense import DEFAULT_MODE_NOTE
from groundkit.retrieval.floor import FLOOR_FILE
from groundkit.retrieval.join import with_highlights
from groundkit.retrieval.plan import plan_search
from groundkit.retrieval.request import (
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
)
from groundkit.retrieval.rerank import Reranker, checked_rerank
from groundkit.shards.gather import ShardGroup, all_answered, fuse_hits, join_hits
from groundkit.shards.merge import ShardHit, merge_hits
from groundkit.shards.routing import shard_of
from groundkit.shards.shard_manifest import ShardManifest, shard_name
from groundkit.shards.shard_stats import reduce_statistics

__all__ = ["ShardedSearch"]


class ShardedSearch:
    """Searches sharded collection ``manifest`` through ``shards``, as ``Retriever`` searches
    one collection over the same corpus (same arguments, same results)."""

    def __init__(
        self,
        manifest: ShardManifest,
        shards: ShardGroup,
        *,
        bm25: BM25Params | None = None,
        reranker: Reranker | None = None,
    ) -> None:
        self.manifest = manifest
        self.shards = shards
        self.bm25 = bm25 or BM25Params()
        self.reranker = reranker
        self.analyzer: Analyzer = bind_analyzer(manifest.collection, manifest.analyzer, None)
        embedding = manifest.embedding
        self._semantic = embedding is not None and EmbeddingIdentity.from_json(embedding).semantic
        self._holding = [n for n, shard in enumerate(manifest.shards) if shard.chunk_count] or [
            manifest.reference_shard
        ]

    @property
    def generation(self) -> int:
        return self.manifest.generation

    @property
    def default_mode(self) -> SearchMode:
        return self.shards.default_mode

    def search(
        self,
        query: str,
        top_k: int | None = None,
        mode: SearchMode | None = None,
        *,
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
        prefix: bool = False,
        fuzzy: bool = False,
    ) -> SearchResponse:
        """As ``Retriever.search``: ``where`` filters in every shard before the merge, the
        reranker (``reranker=``) re-scores the merged candidates once. A shard that is
        missing, out of step or silent fails the search (``ShardUnavailableError``).
        ``prefix`` and ``fuzzy`` are refused (``ConfigurationError``): their lexicon is not
        gathered across shards yet."""
        if prefix or fuzzy:
            raise ConfigurationError(
                "prefix and fuzzy search work on one collection; a sharded collection does not "
                "gather a lexicon across its shards yet: search without them"
            )
        shards = self.shards
        started = time.perf_counter()
        plan = plan_search(
            query,
            top_k,
            mode,
            default_mode=shards.default_mode if mode is None else mode,
            reranker=self.reranker,
            score_threshold=score_threshold,
            hybrid=hybrid,
            rerank=rerank,
            rrf_k=rrf_k,
            depth=depth,
            weights=weights,
            min_similarity=min_similarity,
            rerank_depth=rerank_depth,
        )
        mode, k, options, want, leg_depth = (
            plan.mode,
            plan.k,
            plan.options,
            plan.want,
            plan.leg_depth,
        )
        floor, floor_source = -math.inf, None
        if mode != "bm25":  # dense abstains under the floor (adr/0024)
            floor, floor_source = self._floor(mode, plan.min_similarity)
        params = self.bm25
        trace = plan.trace(self.manifest.generation)
        if not plan.asked and self._semantic and shards.default_mode == "bm25":
            trace.mode_note = DEFAULT_MODE_NOTE  # as one collection's: its embedder is absent
        if where is not None:
            trace.filter = {
                **where.to_dict(),
                "chunks": sum(all_answered(shards.admitted(where), shards.size)),
            }
        terms = self.analyzer.terms(query)
        lexical: list[ShardHit] = []
        reduced = None
        if mode != "dense":
            reduced = reduce_statistics(all_answered(shards.statistics(terms), shards.size))
            expected = (self.manifest.chunk_count, self.manifest.total_length)
            if (reduced.chunk_count, reduced.total_length) != expected:
                raise ShardUnavailableError(
                    f"the shards hold {reduced.chunk_count} chunks of total length "
                    f"{reduced.total_length}, the manifest {expected[0]} and {expected[1]}: a "
                    "shard is missing or out of step; refusing to answer"
                )
            threshold = score_threshold if mode == "bm25" else None
            answers = all_answered(
                shards.lexical(terms, leg_depth, reduced.df, threshold, where), shards.size
            )
            lexical = merge_hits([hits for hits, _ in answers], leg_depth)
            trace.query_terms = len(terms)
            trace.path = "sharded:" + ",".join(sorted({path for _, path in answers}))
            trace.bm25 = {"k1": params.k1, "b": params.b}
        ranked: list[tuple[ShardHit, float]]
        if mode == "bm25":
            ranked = [(hit, hit.score) for hit in lexical]
        elif mode == "dense":  # judged per query on the best similarity (adr/0049)
            lowest = -math.inf if score_threshold is None else score_threshold
            dense = all_answered(shards.dense(query, mode, want, lowest, where), shards.size)
            found = merge_hits([h for h, _ in dense], want)
            trace.dense_best = found[0].score if found else None
            evidence = dense_has_evidence(trace.dense_best, floor)
            ranked = [(hit, hit.score) for hit in found] if evidence else []
            trace.vector_store = _stores(dense)
            trace.abstained = not ranked
        else:
            assert options is not None and reduced is not None
            per_shard = all_answered(
                shards.dense(query, mode, leg_depth, -math.inf, where), shards.size
            )
            dense_hits = merge_hits([hits for hits, _ in per_shard], leg_depth)
            trace.vector_store = _stores(per_shard)
            trace.dense_best = dense_hits[0].score if dense_hits else None
            if not dense_has_evidence(trace.dense_best, floor):
                dense_hits = []
            counts, chunks = reduced.df, reduced.chunk_count
            share = lexical_share(
                lexical[0].score if lexical else None,
                terms,
                lambda term: bm25_idf(chunks, counts.get(term, 0)),
            )
            trace.legs = {"bm25": len(lexical), "dense": len(dense_hits)}
            trace.lexical_share = share
            trace.fusion = {
                "rrf_k": options.rrf_k,
                "depth": leg_depth,
                "weights": list(options.weights),
            }
            minimum, share_source = self._lexical_share(options.min_lexical_share)
            trace.fusion["min_lexical_share"] = minimum
            trace.fusion["lexical_share_source"] = share_source
            trace.abstained = not dense_hits and (not lexical or share < minimum)
            ranked = [] if trace.abstained else fuse_hits(lexical, dense_hits, options)
            cut = -math.inf if score_threshold is None else score_threshold
            ranked = [(hit, score) for hit, score in ranked if score >= cut][:want]
        if mode != "bm25":
            trace.min_similarity = floor
            trace.floor_source = floor_source
        trace.timings_ms["shards"] = round((time.perf_counter() - started) * 1000, 3)
        results = join_hits(shards, ranked)
        if plan.reranking is not None:
            assert self.reranker is not None  # rerank_candidates refused the search otherwise
            results = checked_rerank(self.reranker, query, results, k)
            trace.stage = "rerank"
            trace.rerank_depth = want
        if highlight and terms:
            results = with_highlights(self.analyzer, terms, results)
        trace.score_threshold = score_threshold
        trace.timings_ms["total"] = round((time.perf_counter() - started) * 1000, 3)
        return SearchResponse(
            query=query, results=tuple(results), metadata=trace.to_dict(), trace=trace
        )

    def _floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor every shard holding chunks resolves (a given one: the
        reference shard's check of it); shards that disagree (a ``dense-floor.json`` in some
        shards only, or different ones) are ``ConfigurationError``, never one shard's floor."""
        asked = self._asked(given)
        floors = all_answered(self.shards.floors(mode, given, asked), len(asked))
        return self._agreed(
            asked, floors, "similarity floors", "(or remove them all for the embedder's "
            "default), or pass min_similarity",
        )  # fmt: skip

    def _lexical_share(self, given: float | None) -> tuple[float, str]:
        """Hybrid's lexical evidence bar as every shard holding chunks resolves it; shards
        that disagree are ``ConfigurationError``, as for the floor (adr/0049)."""
        asked = self._asked(given)
        shares = all_answered(self.shards.lexical_shares(given, asked), len(asked))
        return self._agreed(asked, shares, "minimum lexical shares", "or pass min_lexical_share")

    def _asked(self, given: float | None) -> list[int]:
        """The shards that resolve a setting: the reference one checks a given value, else
        every shard holding chunks."""
        return [self.manifest.reference_shard] if given is not None else list(self._holding)

    def _agreed(
        self, asked: list[int], answers: list[tuple[float, str]], what: str, fix: str
    ) -> tuple[float, str]:
        """The one value (and source) the shards resolved; ``ConfigurationError`` naming each
        shard's when they differ."""
        if len(set(answers)) > 1:
            found = ", ".join(
                f"{shard_name(shard)}: {value!r} ({source})"
                for shard, (value, source) in zip(asked, answers, strict=True)
            )
            raise ConfigurationError(
                f"the shards of {self.manifest.collection!r} resolve different {what} "
                f"({found}); a sharded collection has one: put the same {FLOOR_FILE} in every "
                f"shard's folder {fix}",
                subject=self.manifest.collection,
            )
        return answers[0]

    def verify(self, result: SearchResult) -> Verification:
        """Re-read ``result``'s source and compare, as ``Retriever.verify``: in the shard the
        routing gives its source, which holds its document record (and knows where the
        source lives)."""
        shard = shard_of(result.source, self.shards.size)
        return self.shards.verify(shard, result.citation, result.document_id)


def _stores(answers: list[tuple[list[ShardHit], str | None]]) -> str | None:
    """The vector store the shards searched (one name, as one collection's trace gives;
    comma-joined if shards were opened with different ones)."""
    names = sorted({store for _, store in answers if store is not None})
    return ",".join(names) if names else None
