"""``Searcher``: the one search, over N >= 1 shards, whatever carries the calls to them.

One collection (one shard scored with its own statistics), a sharded collection opened in this
process, and ``groundkit_ray``'s replicas are this one class over their own ``Transport``
(tantivy's ``Searcher`` over its segments; httpx's client over its transport, adr/0063);
``Searcher.open`` opens a collection or a sharded one by name. A search reduces the query
terms' statistics, has every shard score with them (filtered there, before the merge), merges
by (score, tie key), joins only the kept hits to their records, and reranks the merged
candidates once: BM25 hits of N shards are bit-identical to one collection's; dense
similarities need no statistics; hybrid fuses the two merged lists, and abstains when neither
leg has evidence (adr/0008, adr/0049).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, TypeVar

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.question_words import content_terms, question_terms
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, DEFAULT_TOP_K, BM25Params
from groundkit.contracts import Document, SearchResult
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError, ShardUnavailableError
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import Accelerator
from groundkit.manifest import EmbeddingIdentity
from groundkit.responses import SearchResponse, SearchTrace
from groundkit.retrieval.abstention import dense_has_evidence, lexical_share
from groundkit.retrieval.citations import Verification
from groundkit.retrieval.collection_scorer import CollectionScorer
from groundkit.retrieval.dense import DEFAULT_MODE_NOTE
from groundkit.retrieval.expansion import ExpandedQuery
from groundkit.retrieval.floor import FLOOR_FILE
from groundkit.retrieval.grouping import group_results, grouped
from groundkit.retrieval.join import with_highlights
from groundkit.retrieval.merge import ShardHit, merge_hits
from groundkit.retrieval.plan import SearchPlan, plan_search
from groundkit.retrieval.request import (
    GroupOptions,
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
    SearchRequest,
)
from groundkit.retrieval.rerank import Reranker, checked_rerank
from groundkit.retrieval.shard_stats import ShardStatistics, idf_of, reduce_statistics
from groundkit.retrieval.steps import (
    Admitted,
    DefaultMode,
    Dense,
    DocumentOf,
    Floor,
    Lexical,
    LexicalBar,
    LexicalShare,
    Statistics,
    Step,
    Verify,
    Warm,
)
from groundkit.retrieval.transport import (
    LocalTransport,
    Transport,
    all_answered,
    fuse_hits,
    join_hits,
    store_names,
)
from groundkit.store.protocols import CollectionReader

if TYPE_CHECKING:  # the sharded side is imported where one is opened: a search needs none
    from groundkit.shards.shard_manifest import ShardManifest

__all__ = ["Expander", "Layout", "Retriever", "Searcher", "sharded_layout", "sharded_searcher"]

T = TypeVar("T")
Expander = Callable[..., ExpandedQuery]
"""``expand(query, prefix=..., fuzzy=...)``: a query's terms with prefix and typo expansions."""


@dataclass(frozen=True, slots=True)
class Layout:
    """What a searcher knows of the collection behind its shards."""

    collection: str
    """Its name (a sharded collection's) or location (one collection's), for messages."""
    generation: int
    semantic: bool
    """Whether it is bound to a semantic embedder (its default mode is then hybrid)."""
    holding: tuple[int, ...] = (0,)
    """The shards holding chunks: each resolves the floor and the lexical bar."""
    reference: int = 0
    """The shard that checks a floor or bar given by the search, and answers the default
    mode for all."""
    totals: tuple[int, int] | None = None
    """(chunks, total length) the shards' statistics must sum to; None for one collection."""
    shards: int = 1
    """How many shards there are (one collection: 1)."""


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
        self.transport = transport
        self.layout = layout
        self.analyzer = analyzer
        self.bm25 = bm25 or BM25Params()
        self.reranker = reranker
        self._expand = expand
        self._accelerator = accelerator
        self._framing_terms: frozenset[str] | None = None
        self._every = tuple(range(layout.shards))
        self._default_mode: SearchMode | None = None
        self._bar: tuple[float | None, str] | None = None

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
    def generation(self) -> int:
        return self.layout.generation

    @property
    def default_mode(self) -> SearchMode:
        """The mode of a search that names none: ``hybrid`` on a collection bound to a
        semantic embedder the shards have (adr/0025), else ``bm25``; asked once."""
        if self._default_mode is None:
            self._default_mode = self._ask([self.layout.reference], DefaultMode())[0]
        return self._default_mode

    def _ask(self, shards: Sequence[int], step: Step[T]) -> list[T]:
        """``step``'s answer from each of ``shards``, refused unless every one answered."""
        return all_answered(self.transport.send([(shard, step) for shard in shards]), len(shards))

    def _all(self, step: Step[T]) -> list[T]:
        """``step``'s answer from every shard, in shard order."""
        return self._ask(self._every, step)

    def search(
        self,
        request: SearchRequest | str,
        top_k: int | None = None,
        mode: SearchMode | None = None,
        *,
        score_threshold: float | None = None,
        min_similarity: float | None = None,
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
            given = (top_k, mode, score_threshold, min_similarity, hybrid, where)
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
                hybrid=hybrid,
                rerank=RerankOptions() if rerank is True else (rerank or None),
                where=where,
                highlight=highlight,
                prefix=prefix,
                fuzzy=fuzzy,
                group=GroupOptions() if group is True else (group or None),
            )
        return self._run(request)

    def _run(self, request: SearchRequest) -> SearchResponse:
        started = time.perf_counter()
        # the default is asked for only where the request names no mode (it may make a model)
        default = self.default_mode if request.mode is None else request.mode
        plan = plan_search(request, default_mode=default, reranker=self.reranker)
        request, mode = plan.request, plan.mode
        floor, floor_source = -math.inf, None
        if mode != "bm25":  # dense evidence is judged on the best similarity (adr/0049)
            floor, floor_source = self._floor(mode, request.min_similarity)
        trace = plan.trace(self.generation)
        if not plan.asked and self.layout.semantic and self.default_mode == "bm25":
            trace.mode_note = DEFAULT_MODE_NOTE  # its embedder is not available here
        where = request.where
        if where is not None:
            admitted = self._all(Admitted(where))
            trace.filter = {**where.to_dict(), "chunks": sum(admitted)}
        terms, matched = self._terms(request, trace)
        mark = started
        # tie keys order a merge of several lists and a fusion; one list is in order already
        ties = self.layout.shards > 1 or mode == "hybrid"
        lexical: list[ShardHit] = []
        reduced: ShardStatistics | None = None
        if mode != "dense":
            reduced, lexical = self._lexical(request, terms, plan.leg_depth, ties, trace)
            if mode == "bm25":
                lexical = self._bm25_evidence(lexical, terms, trace)
            mark = _lap(trace.timings_ms, "bm25", mark)
        hits, scores = lexical, None
        if mode == "dense":
            hits = self._dense(request, plan.want, floor, ties, trace)
            mark = _lap(trace.timings_ms, "dense", mark)
        elif mode == "hybrid":
            reduced = reduced or self._statistics(terms)
            fused = self._hybrid(request, plan, lexical, reduced, terms, floor, trace)
            hits, scores = [hit for hit, _ in fused], [score for _, score in fused]
            mark = _lap(trace.timings_ms, "dense_and_fusion", mark)
        if mode != "bm25":
            trace.min_similarity = floor
            trace.floor_source = floor_source
        results = join_hits(self.transport, self.layout.shards, hits, scores)
        mark = _lap(trace.timings_ms, "join", mark)
        if request.rerank is not None:
            assert self.reranker is not None  # plan_search refused the search otherwise
            results = checked_rerank(self.reranker, request.query, results, request.passages)
            trace.stage = "rerank"
            trace.rerank_depth = plan.want
            mark = _lap(trace.timings_ms, "rerank", mark)
        sizes: list[int] | None = None
        if request.group is not None:
            pages = grouped(results, request.top_k, request.group.passages)
            results = [result for page in pages for result in page]
            sizes = [len(page) for page in pages]
            trace.group = {
                "passages": request.group.passages,
                "depth": request.passages,
                "pages": len(pages),
            }
        if request.highlight and matched:
            results = with_highlights(self.analyzer, matched, results)
            mark = _lap(trace.timings_ms, "highlight", mark)
        trace.score_threshold = request.score_threshold
        trace.timings_ms["total"] = round((mark - started) * 1000, 3)
        return SearchResponse(
            query=request.query,
            results=tuple(results),
            metadata=trace.to_dict(),
            trace=trace,
            groups=None if sizes is None else group_results(results, sizes),
        )

    def _terms(self, request: SearchRequest, trace: SearchTrace) -> tuple[list[str], set[str]]:
        """The query's terms (with prefix and typo expansions when asked) and the terms
        whose words the highlights mark."""
        if not (request.prefix or request.fuzzy):
            terms = self.analyzer.terms(request.query)
            return terms, set(terms)
        if self._expand is None:
            raise ConfigurationError(
                "prefix and fuzzy search work on one collection; a sharded collection does not "
                "gather a lexicon across its shards yet: search without them"
            )
        expanded = self._expand(request.query, prefix=request.prefix, fuzzy=request.fuzzy)
        trace.expansions = expanded.trace()
        return expanded.terms, expanded.matched_terms

    def _lexical(
        self,
        request: SearchRequest,
        terms: list[str],
        depth: int,
        ties: bool,
        trace: SearchTrace,
    ) -> tuple[ShardStatistics | None, list[ShardHit]]:
        """The merged BM25 hits, every shard scoring with the terms' statistics over all of
        them, and those statistics (None for one collection, which scores with its own)."""
        size = self.layout.shards
        reduced = None if self.layout.totals is None else self._statistics(terms)
        df = {} if reduced is None else reduced.df
        threshold = request.score_threshold if request.mode == "bm25" else None
        answers = self._all(Lexical(terms, depth, df, threshold, request.where, ties))
        paths = sorted({path for _, path in answers})
        trace.query_terms = len(terms)
        trace.path = paths[0] if size == 1 else "sharded:" + ",".join(paths)
        if self._accelerator is not None:
            trace.accelerator = self._accelerator()
        trace.bm25 = {"k1": self.bm25.k1, "b": self.bm25.b}
        return reduced, merge_hits([hits for hits, _ in answers], depth)

    def _bm25_evidence(
        self,
        lexical: list[ShardHit],
        terms: list[str],
        trace: SearchTrace,
    ) -> list[ShardHit]:
        """``lexical``, or nothing when the collection records a bar its calibration found
        to separate and BM25's best share of the query's ideal score is under it (adr/0060)."""
        bar, source = self._bm25_bar()
        if source == "none":
            return lexical
        share = self.lexical_evidence(terms, lexical[0].score if lexical else None)
        trace.lexical_share = share
        trace.lexical_bar = {"min_lexical_share": bar, "source": source}
        trace.abstained = bar is not None and (not lexical or share < bar)
        return [] if trace.abstained else lexical

    def lexical_evidence(self, query: str | list[str], best: float | None = None) -> float:
        """A query's BM25 evidence for bm25's abstention (adr/0060): the best score of its
        content terms (the question's framing words left out) over their ideal score; 0.0
        without a match. ``query`` as text, or as its terms with ``best`` already found
        for them (a search reuses its own hits when nothing is left out)."""
        terms = self.analyzer.terms(query) if isinstance(query, str) else query
        if not terms:
            return 0.0
        content = content_terms(terms, self.question_terms())
        reduced = self._statistics(content)
        if content != terms or isinstance(query, str):
            df = {} if self.layout.totals is None else reduced.df
            found = self._all(Lexical(content, 1, df, None, None, self.layout.shards > 1))
            hits = merge_hits([hits for hits, _ in found], 1)
            best = hits[0].score if hits else None
        return lexical_share(best, content, idf_of(reduced))

    def question_terms(self) -> frozenset[str]:
        """The terms of the question words of the collection's languages (adr/0060)."""
        if self._framing_terms is None:
            self._framing_terms = question_terms(self.analyzer.languages, self.analyzer.terms)
        return self._framing_terms

    def _bm25_bar(self) -> tuple[float | None, str]:
        """bm25's bar as every shard holding chunks resolves it (disagreeing shards are
        ``ConfigurationError``, as for the floor); asked once, as each shard reads it once."""
        if self._bar is not None:
            return self._bar
        bars = self._ask(self.layout.holding, LexicalBar())
        if len(set(bars)) > 1:
            raise ConfigurationError(
                f"the shards of {self.layout.collection!r} record different lexical bars "
                f"({bars}); calibrate the sharded collection again",
                subject=self.layout.collection,
            )
        self._bar = bars[0]
        return self._bar

    def _statistics(self, terms: list[str]) -> ShardStatistics:
        """The terms' statistics reduced over every shard, checked against the manifest's
        totals where there is one (a shard missing or out of step is refused)."""
        reduced = reduce_statistics(self._all(Statistics(terms)))
        totals = self.layout.totals
        if totals is not None and (reduced.chunk_count, reduced.total_length) != totals:
            raise ShardUnavailableError(
                f"the shards hold {reduced.chunk_count} chunks of total length "
                f"{reduced.total_length}, the manifest {totals[0]} and {totals[1]}: a shard "
                "is missing or out of step; refusing to answer"
            )
        return reduced

    def _dense(
        self, request: SearchRequest, want: int, floor: float, ties: bool, trace: SearchTrace
    ) -> list[ShardHit]:
        """The merged most similar chunks, or none when the best is under the floor."""
        lowest = -math.inf if request.score_threshold is None else request.score_threshold
        found = self._evidence(request, "dense", want, lowest, floor, ties, trace)
        trace.abstained = not found
        return found

    def _evidence(
        self,
        request: SearchRequest,
        mode: str,
        k: int,
        lowest: float,
        floor: float,
        ties: bool,
        trace: SearchTrace,
    ) -> list[ShardHit]:
        """Every shard's ``k`` most similar chunks merged, or none when the best similarity is
        under the floor: the dense leg's evidence is judged per query (adr/0049)."""
        answers = self._all(Dense(request.query, mode, k, lowest, request.where, ties))
        found = merge_hits([hits for hits, _ in answers], k)
        trace.vector_store = store_names(answers)
        trace.dense_best = found[0].score if found else None
        return found if dense_has_evidence(trace.dense_best, floor) else []

    def _hybrid(
        self,
        request: SearchRequest,
        plan: SearchPlan,
        lexical: list[ShardHit],
        reduced: ShardStatistics,
        terms: list[str],
        floor: float,
        trace: SearchTrace,
    ) -> list[tuple[ShardHit, float]]:
        """The legs fused by reciprocal rank; nothing when the dense leg has no evidence (its
        best similarity is under the floor) and BM25's best is under its share of the query's
        ideal score (adr/0049)."""
        options = request.hybrid or HybridOptions()
        depth = plan.leg_depth
        dense = self._evidence(request, "hybrid", depth, -math.inf, floor, True, trace)
        share = lexical_share(lexical[0].score if lexical else None, terms, idf_of(reduced))
        minimum, source = self._lexical_share(options.min_lexical_share)
        trace.legs = {"bm25": len(lexical), "dense": len(dense)}
        trace.lexical_share = share
        trace.fusion = {
            "rrf_k": options.rrf_k,
            "depth": depth,
            "weights": list(options.weights),
            "min_lexical_share": minimum,
            "lexical_share_source": source,
        }
        trace.abstained = not dense and (not lexical or share < minimum)
        if trace.abstained:
            return []
        cut = -math.inf if request.score_threshold is None else request.score_threshold
        fused = fuse_hits(lexical, dense, options)
        return [(hit, score) for hit, score in fused if score >= cut][: plan.want]

    def _floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor every shard holding chunks resolves (a given one: the
        reference shard's check of it); shards that disagree (a ``dense-floor.json`` in some
        shards only, or different ones) are ``ConfigurationError``, never one shard's floor."""
        asked = self._asked(given)
        floors = self._ask(asked, Floor(mode, given))
        return self._agreed(
            asked, floors, "similarity floors", "(or remove them all for the embedder's "
            "default), or pass min_similarity",
        )  # fmt: skip

    def _lexical_share(self, given: float | None) -> tuple[float, str]:
        """Hybrid's lexical evidence bar as every shard holding chunks resolves it; shards
        that disagree are ``ConfigurationError``, as for the floor (adr/0049)."""
        asked = self._asked(given)
        shares = self._ask(asked, LexicalShare(given))
        return self._agreed(asked, shares, "minimum lexical shares", "or pass min_lexical_share")

    def _asked(self, given: float | None) -> list[int]:
        """The shards that resolve a setting: the reference one checks a given value, else
        every shard holding chunks."""
        return [self.layout.reference] if given is not None else list(self.layout.holding)

    def _agreed(
        self, asked: list[int], answers: list[tuple[float, str]], what: str, fix: str
    ) -> tuple[float, str]:
        """The one value (and source) the shards resolved; ``ConfigurationError`` naming each
        shard's when they differ."""
        if len(set(answers)) > 1:
            from groundkit.shards.shard_manifest import shard_name

            found = ", ".join(
                f"{shard_name(shard)}: {value!r} ({source})"
                for shard, (value, source) in zip(asked, answers, strict=True)
            )
            raise ConfigurationError(
                f"the shards of {self.layout.collection!r} resolve different {what} "
                f"({found}); a sharded collection has one: put the same {FLOOR_FILE} in every "
                f"shard's folder {fix}",
                subject=self.layout.collection,
            )
        return answers[0]

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
        return self._ask([self._holder(result)], step)[0]

    def document_of(self, result: SearchResult) -> Document:
        """``result``'s document record (``RetrievalError`` if the read view lacks it)."""
        return self._ask([self._holder(result)], DocumentOf(result.document_id, result.source))[0]

    def warm(self) -> bool:
        """Load now what the first dense or hybrid search would (the vector store), run the
        embedder once, build the lexicon's typo tables, and score BM25 through numpy where it
        is installed, even on a collection too small for a one-shot process to import it
        (``BM25Index.accelerate``): a server calls this when it opens a collection. False
        where the collection has no usable dense side."""
        return all(self._all(Warm()))

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
        shards=len(manifest.shards),
    )


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


def _lap(timings: dict[str, float], name: str, since: float) -> float:
    now = time.perf_counter()
    timings[name] = round((now - since) * 1000, 3)
    return now
