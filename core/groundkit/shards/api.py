"""``ShardedRetriever``: a sharded collection searched in one process, answering exactly as one
collection over the same corpus would."""

from __future__ import annotations

from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import DEFAULT_INDEX_DIR, BM25Params
from groundkit.contracts import SearchResponse, SearchResult
from groundkit.embedding.base import Embedder
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import Accelerator
from groundkit.retrieval.citations import Verification, verify_document_citation
from groundkit.retrieval.request import HybridOptions, SearchMode
from groundkit.shards.gather import LocalShards, sharded_search
from groundkit.shards.manifest import ShardManifest, load_manifest
from groundkit.shards.routing import shard_of
from groundkit.shards.shard import ShardSearcher
from groundkit.shards.stats import ShardStatistics

__all__ = ["ShardedRetriever"]


class ShardedRetriever:
    """Every shard of a sharded collection opened here; ``search`` scatters and gathers."""

    def __init__(
        self,
        index_dir: str | Path,
        manifest: ShardManifest,
        *,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        vector_store: str | None = None,
        accelerator: Accelerator = "auto",
    ) -> None:
        self.manifest = manifest
        self.bm25 = bm25 or BM25Params()
        self.analyzer: Analyzer = bind_analyzer(manifest.collection, manifest.analyzer, None)
        self._searchers: list[ShardSearcher] = []
        try:
            for shard in range(len(manifest.shards)):
                self._searchers.append(
                    ShardSearcher.open(
                        index_dir,
                        manifest,
                        shard,
                        bm25=self.bm25,
                        embedder=embedder,
                        vector_store=vector_store,
                        accelerator=accelerator,
                    )
                )
        except BaseException:
            self.close()
            raise
        self._shards = LocalShards(self._searchers)

    @classmethod
    def open(
        cls,
        index_dir: str | Path = DEFAULT_INDEX_DIR,
        collection: str = "",
        **options: object,
    ) -> ShardedRetriever:
        """Open sharded collection ``collection`` (``CollectionNotFoundError`` without a
        manifest, ``ShardUnavailableError`` for a missing or changed shard)."""
        return cls(index_dir, load_manifest(index_dir, collection), **options)  # type: ignore[arg-type]

    @property
    def accelerator(self) -> str:
        return self._searchers[0].accelerator if self._searchers else "python"

    def search(
        self,
        query: str,
        top_k: int | None = None,
        mode: SearchMode = "bm25",
        *,
        score_threshold: float | None = None,
        hybrid: HybridOptions | None = None,
    ) -> SearchResponse:
        """As ``Retriever.search`` (without filters or rerank): the ``top_k`` best passages."""
        floor = None
        if mode != "bm25" and self._searchers:  # dense abstains under it too (adr/0024)
            floor = self._searchers[0].dense.require(mode).similarity_floor
        return sharded_search(
            self._shards,
            self.analyzer,
            query,
            top_k,
            mode,
            expected=ShardStatistics(self.manifest.chunk_count, self.manifest.total_length),
            generation=self.manifest.generation,
            bm25=self.bm25,
            similarity_floor=floor,
            score_threshold=score_threshold,
            hybrid=hybrid,
        )

    def verify(self, result: SearchResult) -> Verification:
        """Re-read the result's source and compare (its shard is found by the routing)."""
        searcher = self._searchers[shard_of(result.source, len(self._searchers))]
        return verify_document_citation(
            result.citation, searcher.document(result), searcher.location
        )

    def close(self) -> None:
        for searcher in self._searchers:
            searcher.close()
        self._searchers = []

    def __enter__(self) -> ShardedRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
