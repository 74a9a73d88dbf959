"""``Searcher``: the one search, over N >= 1 shards, whatever carries the calls to them.

One collection (one shard scored with its own statistics), a sharded collection opened in this
process, and ``groundkit_ray``'s replicas are this one class over their own ``Transport``
(tantivy's ``Searcher`` over its segments; httpx's client over its transport, adr/0063);
``Searcher.open`` opens a collection or a sharded one by name. How a search runs over the
shards is ``retrieval/execution.py``'s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, DEFAULT_TOP_K, BM25Params
from groundkit.contracts import Document, SearchResult
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import Accelerator
from groundkit.responses import SearchResponse
from groundkit.retrieval.citations import Verification
from groundkit.retrieval.collection_scorer import CollectionScorer
from groundkit.retrieval.execution import Execution, Expander, Layout, sharded_layout
from groundkit.retrieval.request import (
    GroupOptions,
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
    SearchRequest,
)
from groundkit.retrieval.rerank import Reranker
from groundkit.retrieval.steps import DocumentOf, Verify, Warm
from groundkit.retrieval.transport import LocalTransport, Transport
from groundkit.store.protocols import CollectionReader

if TYPE_CHECKING:  # the sharded side is imported where one is opened: a search needs none
    from groundkit.shards.shard_manifest import ShardManifest

__all__ = ["Expander", "Layout", "Retriever", "Searcher", "sharded_layout", "sharded_searcher"]


class Searcher:
    """Answers ``SearchRequest``s over the shards ``transport`` reaches (one collection's,
    or a sharded one's); open one with ``Searcher.open`` (by name) or ``Searcher.of`` (a
    read view), and close it (or use it as a context manager) when done."""

    def __init__(
        self,
        transport: Transport,
        layout: Layout,
        *,
        analyzer: Analyzer,
        bm25: BM25Params | None = None,
        reranker: Reranker | None = None,
        expand: Expander | None = None,
        accelerator: Callable[[], str] | None = None,
    ) -> None:
        """``expand``: prefix and typo expansion, where one lexicon answers for every shard
        (one collection); ``accelerator``: the BM25 scoring the trace names."""
        self._execution = Execution(
            transport,
            layout,
            analyzer=analyzer,
            bm25=bm25,
            reranker=reranker,
            expand=expand,
            accelerator=accelerator,
        )

    def __init_subclass__(cls, **kwargs: object) -> None:
        raise TypeError(
            "Searcher is not subclassed: what differs between collections is the Transport "
            "it is given (adr/0063)"
        )

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
        accelerator: Accelerator = "auto",
    ) -> Searcher:
        """Open collection ``collection`` under ``index_dir``, a sharded one (its folder holds
        ``shards.json``) or not: ``CollectionNotFoundError`` if there is none,
        ``ShardUnavailableError`` for a missing or changed shard.

        Without ``embedder``, a collection with an embedding manifest gets the registered
        embedder that reproduces it (``hash``); a different ``embedder`` raises
        ``IndexIdentityError`` here, before anything else is read. ``vector_store`` names the
        store dense searches use (``exact``, ``usearch``); default: the one recorded beside the
        collection, else ``exact``. ``analyzer``: one collection's only (a sharded collection
        searches with the analyzer its manifest records).
        """
        from groundkit.collection import is_sharded, open_reader

        if not is_sharded(index_dir, collection):
            return cls.of(
                open_reader(index_dir, collection),
                analyzer=analyzer,
                bm25=bm25,
                embedder=embedder,
                reranker=reranker,
                vector_store=vector_store,
                accelerator=accelerator,
            )
        if analyzer is not None:
            raise ConfigurationError(
                f"sharded collection {collection!r} searches with the analyzer its manifest "
                "records; open it without analyzer= (--stemmer/--language/--fold-diacritics)",
                subject=collection,
            )
        from groundkit.shards.shard_manifest import load_manifest

        manifest = load_manifest(index_dir, collection)
        scorers: list[CollectionScorer] = []
        try:
            for shard in range(len(manifest.shards)):
                scorers.append(
                    CollectionScorer.open_shard(
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
            for scorer in scorers:
                scorer.close()
            raise
        transport = LocalTransport(scorers)
        return sharded_searcher(
            manifest,
            transport,
            bm25=bm25,
            reranker=reranker,
            accelerator=lambda: scorers[0].accelerator,
        )

    @classmethod
    def of(
        cls,
        reader: CollectionReader,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        vector_store: str | None = None,
        accelerator: Accelerator = "auto",
    ) -> Searcher:
        """The searcher of one collection's read view ``reader`` (closed with it); the options
        as ``open``'s. Documents written after ``reader`` was opened stay invisible."""
        scorer = CollectionScorer(
            reader,
            analyzer=analyzer,
            bm25=bm25,
            embedder=embedder,
            vector_store=vector_store,
            accelerator=accelerator,
        )
        manifest = scorer.dense.manifest
        layout = Layout(
            collection=reader.location,
            generation=reader.generation,
            semantic=manifest is not None and manifest.semantic,
        )
        return cls(
            LocalTransport([scorer]),
            layout,
            analyzer=scorer.analyzer,
            bm25=bm25,
            reranker=reranker,
            expand=scorer.expand,
            accelerator=lambda: scorer.accelerator,
        )

    @property
    def transport(self) -> Transport:
        """What carries each step to the shards (adr/0063)."""
        return self._execution.transport

    @property
    def layout(self) -> Layout:
        return self._execution.layout

    @property
    def analyzer(self) -> Analyzer:
        return self._execution.analyzer

    @property
    def bm25(self) -> BM25Params:
        return self._execution.bm25

    @property
    def reranker(self) -> Reranker | None:
        return self._execution.reranker

    @property
    def generation(self) -> int:
        return self.layout.generation

    @property
    def default_mode(self) -> SearchMode:
        """The mode of a search that names none: ``hybrid`` on a collection bound to a
        semantic embedder the shards have (adr/0025), else ``bm25``; asked once."""
        return self._execution.default_mode

    def search(  # noqa: PLR0913  SearchRequest's keyword form, one keyword a field
        self,
        request: SearchRequest | str,
        top_k: int | None = None,
        mode: SearchMode | None = None,
        *,
        score_threshold: float | None = None,
        min_similarity: float | None = None,
        lexical_bar: float | None = None,
        hybrid: HybridOptions | None = None,
        rerank: bool | RerankOptions = False,
        where: SearchFilter | None = None,
        highlight: bool = True,
        prefix: bool = False,
        fuzzy: bool = False,
        group: bool | GroupOptions = False,
    ) -> SearchResponse:
        """The best passages for ``request``, best first, each with its citation.

        The keywords are a convenience that builds the ``SearchRequest`` (each field is
        explained there; ``top_k`` None is the default, ``rerank=True`` is
        ``RerankOptions()``, ``group=True`` ``GroupOptions()``); pass a request or a query
        with keywords, not both."""
        if isinstance(request, SearchRequest):
            given = (top_k, mode, score_threshold, min_similarity, lexical_bar, hybrid, where)
            flags = rerank or not highlight or prefix or fuzzy or group
            if any(v is not None for v in given) or flags:
                raise ConfigurationError("pass a SearchRequest, or a query with keywords, not both")
        else:
            request = SearchRequest(
                request,
                DEFAULT_TOP_K if top_k is None else top_k,
                mode,
                score_threshold=score_threshold,
                min_similarity=min_similarity,
                lexical_bar=lexical_bar,
                hybrid=hybrid,
                rerank=RerankOptions() if rerank is True else (rerank or None),
                where=where,
                highlight=highlight,
                prefix=prefix,
                fuzzy=fuzzy,
                group=GroupOptions() if group is True else (group or None),
            )
        return self._execution.run(request)

    def lexical_evidence(self, query: str | list[str], best: float | None = None) -> float:
        """A query's BM25 evidence for bm25's abstention (adr/0060): the best score of its
        content terms (the question's framing words left out) over their ideal, the idf of
        the ``abstention.EVIDENCE_TERMS`` most specific (adr/0071); 0.0 without a match.
        ``query`` as text, or as its terms with ``best`` already found for them (else found
        here)."""
        return self._execution.lexical_evidence(query, best)

    def question_terms(self) -> frozenset[str]:
        """The terms of the question words of the collection's languages (adr/0060)."""
        return self._execution.question_terms()

    def _holder(self, result: SearchResult) -> int:
        """The shard that holds ``result``'s document: the one its source routes to."""
        if self.layout.shards == 1:
            return 0
        from groundkit.shards.routing import shard_of

        return shard_of(result.source, self.layout.shards)

    def verify(self, result: SearchResult) -> Verification:
        """Re-read ``result``'s source and compare: in the shard the routing gives its source,
        which holds its document record (and knows where the source lives)."""
        step = Verify(result.citation, result.document_id)
        return self._execution.ask([self._holder(result)], step)[0]

    def document_of(self, result: SearchResult) -> Document:
        """``result``'s document record (``RetrievalError`` if the read view lacks it)."""
        step = DocumentOf(result.document_id, result.source)
        return self._execution.ask([self._holder(result)], step)[0]

    def warm(self) -> bool:
        """Load now what the first dense or hybrid search would (the vector store), run the
        embedder once, build the lexicon's typo tables, and score BM25 through numpy where it
        is installed, even on a collection too small for a one-shot process to import it
        (``BM25Index.accelerate``): a server calls this when it opens a collection. False
        where the collection has no usable dense side."""
        return all(self._execution.every(Warm()))

    @property
    def readers(self) -> tuple[CollectionReader, ...]:
        """Each shard's read view, in shard order (one collection: its own), where this
        process holds them."""
        return tuple(scorer.reader for scorer in self._local().scorers)

    @property
    def reader(self) -> CollectionReader:
        """One collection's read view (a sharded collection has one per shard: ``readers``)."""
        readers = self.readers
        if len(readers) != 1:
            raise ConfigurationError(
                f"{self.layout.collection!r} is sharded: it has one read view per shard "
                "(Searcher.readers)",
                subject=self.layout.collection,
            )
        return readers[0]

    @property
    def embedder(self) -> Embedder | None:
        """The embedder dense and hybrid searches use (None for a lexical collection)."""
        return self._local().scorers[self.layout.reference].dense.embedder

    def _local(self) -> LocalTransport:
        if not isinstance(self.transport, LocalTransport):
            raise ConfigurationError(
                f"the shards of {self.layout.collection!r} are held by other processes; "
                "only their search answers here",
                subject=self.layout.collection,
            )
        return self.transport

    def close(self) -> None:
        """Close what the transport holds (the read views, in this process)."""
        self.transport.close()

    def __enter__(self) -> Searcher:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


Retriever = Searcher
"""The former name of ``Searcher`` (``Retriever.open`` is ``Searcher.open``), kept for the code
written against it."""


def sharded_searcher(
    manifest: ShardManifest,
    transport: Transport,
    *,
    bm25: BM25Params | None = None,
    reranker: Reranker | None = None,
    accelerator: Callable[[], str] | None = None,
) -> Searcher:
    """The ``Searcher`` of sharded collection ``manifest`` over the shards ``transport``
    reaches (``groundkit_ray``'s replicas, or this process's scorers)."""
    analyzer = bind_analyzer(manifest.collection, manifest.analyzer, None)
    return Searcher(
        transport,
        sharded_layout(manifest),
        analyzer=analyzer,
        bm25=bm25,
        reranker=reranker,
        accelerator=accelerator,
    )
