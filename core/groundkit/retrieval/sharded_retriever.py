"""``ShardedRetriever``: a sharded collection searched in one process, answering exactly as one
collection over the same corpus would; ``sharded_searcher`` the same ``Searcher`` over any
``ShardGroup`` (``groundkit_ray``'s replicas)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from groundkit.config import DEFAULT_INDEX_DIR, BM25Params
from groundkit.embedding.embedder import Embedder
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import Accelerator
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval.gather import LocalShards, ShardGroup
from groundkit.retrieval.rerank import Reranker
from groundkit.retrieval.searcher import Layout, Searcher
from groundkit.retrieval.shard_searcher import ShardSearcher
from groundkit.store.protocols import CollectionReader

if TYPE_CHECKING:  # the sharded side is imported where one is opened: a search needs none
    from groundkit.shards.shard_manifest import ShardManifest

__all__ = ["ShardedRetriever", "sharded_layout", "sharded_searcher"]


def sharded_layout(manifest: ShardManifest) -> Layout:
    """What a ``Searcher`` over the shards of ``manifest`` knows of their collection."""
    embedding = manifest.embedding
    holding = tuple(n for n, shard in enumerate(manifest.shards) if shard.chunk_count)
    return Layout(
        collection=manifest.collection,
        generation=manifest.generation,
        semantic=embedding is not None and EmbeddingIdentity.from_json(embedding).semantic,
        holding=holding or (manifest.reference_shard,),
        reference=manifest.reference_shard,
        totals=(manifest.chunk_count, manifest.total_length),
    )


def sharded_searcher(
    manifest: ShardManifest,
    shards: ShardGroup,
    *,
    bm25: BM25Params | None = None,
    reranker: Reranker | None = None,
) -> Searcher:
    """The ``Searcher`` of sharded collection ``manifest`` over ``shards``."""
    analyzer = bind_analyzer(manifest.collection, manifest.analyzer, None)
    return Searcher(
        shards, sharded_layout(manifest), analyzer=analyzer, bm25=bm25, reranker=reranker
    )


class ShardedRetriever(Searcher):
    """Every shard of a sharded collection opened here; ``search`` scatters and gathers."""

    def __init__(
        self,
        index_dir: str | Path,
        manifest: ShardManifest,
        *,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        vector_store: str | None = None,
        accelerator: Accelerator = "auto",
    ) -> None:
        self._searchers: list[ShardSearcher] = []
        try:
            for shard in range(len(manifest.shards)):
                self._searchers.append(
                    ShardSearcher.open(
                        index_dir,
                        manifest,
                        shard,
                        bm25=bm25,
                        embedder=embedder,
                        vector_store=vector_store,
                        accelerator=accelerator,
                    )
                )
        except BaseException:
            self.close()
            raise
        self.manifest = manifest
        super().__init__(
            LocalShards(self._searchers, reference=manifest.reference_shard),
            sharded_layout(manifest),
            analyzer=bind_analyzer(manifest.collection, manifest.analyzer, None),
            bm25=bm25,
            reranker=reranker,
            accelerator=lambda: self.accelerator,
        )

    @classmethod
    def open(
        cls,
        index_dir: str | Path = DEFAULT_INDEX_DIR,
        collection: str = "",
        **options: object,
    ) -> ShardedRetriever:
        """Open sharded collection ``collection`` (``CollectionNotFoundError`` without a
        manifest, ``ShardUnavailableError`` for a missing or changed shard)."""
        from groundkit.shards.shard_manifest import load_manifest

        return cls(index_dir, load_manifest(index_dir, collection), **options)  # type: ignore[arg-type]

    @property
    def accelerator(self) -> str:
        return self._searchers[0].accelerator if self._searchers else "python"

    @property
    def readers(self) -> tuple[CollectionReader, ...]:
        """Each shard's read view, in shard order."""
        return tuple(searcher.reader for searcher in self._searchers)

    def close(self) -> None:
        for searcher in self._searchers:
            searcher.close()
        self._searchers = []

    def __enter__(self) -> ShardedRetriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
