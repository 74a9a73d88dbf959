"""``Retriever``: one collection's snapshot opened for search, the one-shard ``Searcher``.

Its search is the ``Searcher``'s (``retrieval/searcher.py``), over a group of one shard scored
with the collection's own statistics; what is its own is opening (identities are compared
before any O(corpus) work), warming, and re-reading a result's source. Modes: ``bm25``,
``dense`` and ``hybrid`` (adr/0008). A hit whose record is missing fails closed with
``RetrievalError`` instead of being dropped or guessed.
"""

from __future__ import annotations

from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, BM25Params
from groundkit.contracts import Document, SearchResult
from groundkit.embedding.embedder import Embedder
from groundkit.errors import RetrievalError
from groundkit.retrieval.citations import Verification, verify_document_citation
from groundkit.retrieval.gather import LocalShards
from groundkit.retrieval.request import MODES
from groundkit.retrieval.rerank import Reranker
from groundkit.retrieval.searcher import Layout, Searcher
from groundkit.retrieval.shard_searcher import ShardSearcher
from groundkit.store.protocols import CollectionReader

__all__ = ["MODES", "Retriever"]


class Retriever(Searcher):
    """Searches one snapshot; documents written after it was opened stay invisible."""

    def __init__(
        self,
        reader: CollectionReader,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        vector_store: str | None = None,
    ) -> None:
        shard = ShardSearcher(
            reader, analyzer=analyzer, bm25=bm25, embedder=embedder, vector_store=vector_store
        )
        manifest = shard.dense.manifest
        layout = Layout(
            collection=reader.location,
            generation=reader.generation,
            semantic=manifest is not None and manifest.semantic,
        )
        super().__init__(
            LocalShards([shard]),
            layout,
            analyzer=shard.analyzer,
            bm25=bm25,
            reranker=reranker,
            expand=shard.expand,
            accelerator=lambda: shard.accelerator,
        )
        self._shard = shard
        self._reader = reader

    @classmethod
    def open(
        cls,
        index_dir: str | Path = DEFAULT_INDEX_DIR,
        collection: str = DEFAULT_COLLECTION,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        vector_store: str | None = None,
    ) -> Retriever:
        """Open a snapshot of a stored collection (``CollectionNotFoundError`` if none).

        Without ``embedder``, a collection with an embedding manifest gets the registered
        embedder that reproduces it (``hash``); a different ``embedder`` raises
        ``IndexIdentityError`` here, before anything else is read. ``vector_store`` names the
        store dense searches use (``exact``, ``usearch``); default: the one recorded beside the
        collection, else ``exact``.
        """
        from groundkit.collection import open_reader

        return cls(
            open_reader(index_dir, collection),
            analyzer=analyzer,
            bm25=bm25,
            embedder=embedder,
            reranker=reranker,
            vector_store=vector_store,
        )

    @property
    def embedder(self) -> Embedder | None:
        """The embedder dense and hybrid searches use (None for a lexical collection)."""
        return self._shard.dense.embedder

    def warm(self) -> bool:
        """Load now what the first dense or hybrid search would (the vector store) and run the
        embedder once, so that search is not the slow one, and score BM25 through numpy where
        it is installed, even on a collection too small for a one-shot process to import it
        (``BM25Index.accelerate``): a server calls this when it opens a collection. False where
        the collection has no usable dense side."""
        return self._shard.warm()

    @property
    def reader(self) -> CollectionReader:
        return self._reader

    def document_of(self, result: SearchResult) -> Document:
        found = self._reader.documents([result.document_id]).get(result.document_id)
        if found is None:
            raise RetrievalError(
                f"document {result.document_id} of {result.source} is not in this snapshot",
                subject=result.source,
                verdict="unresolvable",
            )
        return found

    def verify(self, result: SearchResult) -> Verification:
        """Re-read the result's source under its document's base directory and compare."""
        return verify_document_citation(
            result.citation, self.document_of(result), self._reader.location
        )

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> Retriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
