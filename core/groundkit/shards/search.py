"""``ShardedSearch``: the one sharded search, over whatever carries the calls to the shards.

``ShardedRetriever`` (shards opened in this process) and ``groundkit_ray``'s tool (shards on
Ray Serve replicas) are both this class over their own ``ShardGroup``; neither has a search
of its own.
"""

from __future__ import annotations

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import BM25Params
from groundkit.contracts import SearchResponse
from groundkit.identities import bind_analyzer
from groundkit.retrieval.request import HybridOptions, RerankOptions, SearchFilter, SearchMode
from groundkit.retrieval.rerank import Reranker
from groundkit.shards.gather import ShardGroup, sharded_search
from groundkit.shards.manifest import ShardManifest
from groundkit.shards.stats import ShardStatistics

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
    ) -> SearchResponse:
        """As ``Retriever.search``: ``where`` filters in every shard before the merge, the
        reranker (``reranker=``) re-scores the merged candidates once."""
        return sharded_search(
            self.shards,
            self.analyzer,
            query,
            top_k,
            mode,
            expected=ShardStatistics(self.manifest.chunk_count, self.manifest.total_length),
            generation=self.manifest.generation,
            bm25=self.bm25,
            reranker=self.reranker,
            score_threshold=score_threshold,
            hybrid=hybrid,
            rerank=rerank,
            where=where,
            rrf_k=rrf_k,
            depth=depth,
            weights=weights,
            min_similarity=min_similarity,
            rerank_depth=rerank_depth,
            highlight=highlight,
        )
