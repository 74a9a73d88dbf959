"""``ShardedRetriever``: a sharded collection searched in one process, answering exactly as one
collection over the same corpus would."""

from __future__ import annotations

from pathlib import Path

from groundkit.config import DEFAULT_INDEX_DIR, BM25Params
from groundkit.embedding.embedder import Embedder
from groundkit.index.bm25 import Accelerator
from groundkit.retrieval.rerank import Reranker
from groundkit.shards.gather import LocalShards
from groundkit.shards.search import ShardedSearch
from groundkit.shards.shard import ShardSearcher
from groundkit.shards.shard_manifest import ShardManifest, load_manifest
from groundkit.store.protocols import CollectionReader

__all__ = ["ShardedRetriever"]


class ShardedRetriever(ShardedSearch):
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
        super().__init__(
            manifest,
            LocalShards(self._searchers, reference=manifest.reference_shard),
            bm25=bm25,
            reranker=reranker,
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
