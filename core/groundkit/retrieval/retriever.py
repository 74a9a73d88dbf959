"""``Retriever``: a snapshot of one collection that answers queries with cited passages.

Modes: ``bm25`` (lexical), ``dense`` (embedding similarity) and ``hybrid`` (both, fused by
reciprocal rank, abstaining when neither leg has evidence: adr/0008). This is the one place
where hits are joined to chunk and document records; a hit whose record is missing fails closed
with ``RetrievalError`` instead of being dropped or guessed.
"""

from __future__ import annotations

import math
import time
from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import (
    DEFAULT_COLLECTION,
    DEFAULT_INDEX_DIR,
    BM25Params,
)
from groundkit.contracts import Document, SearchResponse, SearchResult, SearchTrace
from groundkit.embedding.embedder import Embedder
from groundkit.errors import (
    MissingRecordError,
    RetrievalError,
)
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import BM25Index
from groundkit.index.lexicon import Lexicon
from groundkit.index.ties import CachedTieKeys
from groundkit.retrieval.abstention import dense_has_evidence, lexical_share
from groundkit.retrieval.citations import (
    Verification,
    verify_document_citation,
)
from groundkit.retrieval.dense import DEFAULT_MODE_NOTE, DenseLeg
from groundkit.retrieval.expansion import expand_query
from groundkit.retrieval.filtering import FilterCache
from groundkit.retrieval.fusion import reciprocal_rank_fusion
from groundkit.retrieval.join import JoinedRecords, join_results, with_highlights
from groundkit.retrieval.plan import plan_search
from groundkit.retrieval.request import (
    MODES,
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
)
from groundkit.retrieval.rerank import Reranker, checked_rerank
from groundkit.store.protocols import CollectionReader

__all__ = ["MODES", "Retriever"]


class Retriever:
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
        location = reader.location
        try:  # identities are compared before any O(corpus) work
            self.analyzer = bind_analyzer(location, reader.analyzer_identity, analyzer)
            self._dense = DenseLeg(reader, embedder, location=location, vector_store=vector_store)
        except BaseException:
            reader.close()
            raise
        self.reranker = reranker
        self._reader = reader
        self._records = JoinedRecords(reader)
        self._location = location
        self._lexical = BM25Index(reader, bm25)
        self._lexicon = Lexicon(reader)
        self._tie_keys = CachedTieKeys.of(reader)
        self._filters = FilterCache(reader)

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
        return self._dense.embedder

    def warm(self) -> bool:
        """Load now what the first dense or hybrid search would (the vector store) and run the
        embedder once, so that search is not the slow one, and score BM25 through numpy where
        it is installed, even on a collection too small for a one-shot process to import it
        (``BM25Index.accelerate``): a server calls this when it opens a collection. False where
        the collection has no usable dense side."""
        self._lexical.accelerate()
        return self._dense.warm()

    @property
    def default_mode(self) -> SearchMode:
        """The mode of a search that names none: ``hybrid`` on a collection bound to a
        semantic embedder this retriever has (hybrid beat both legs on every dataset
        measured: adr/0025), else ``bm25`` (a lexical collection, the meaningless ``hash``
        embedder, or an embedder that is not available; the response says so)."""
        return self._dense.default_mode

    def _default_note(self) -> str | None:
        manifest = self._dense.manifest
        if manifest is None or not manifest.semantic or self._dense.embedder is not None:
            return None
        return DEFAULT_MODE_NOTE

    @property
    def generation(self) -> int:
        return self._reader.generation

    @property
    def reader(self) -> CollectionReader:
        return self._reader

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
        """The ``top_k`` best passages for ``query``, best first, each with its citation.

        ``mode``: ``bm25``, ``dense`` or ``hybrid``; default ``default_mode`` (hybrid on a
        collection bound to a semantic embedder, else bm25; ``metadata.mode_source`` says
        which: adr/0025). ``score_threshold`` drops results scoring below it (BM25 score,
        similarity or fused score), so a query the collection cannot answer can return nothing.
        ``min_similarity`` (dense and hybrid) is the similarity under which a passage counts as
        unrelated: dense drops it, hybrid takes no evidence from it (default: the collection's
        recorded floor, else the embedder's; -1 turns it off; adr/0024). ``hybrid`` holds the
        fusion settings (``HybridOptions``; ``rrf_k``, ``depth``, ``weights`` and
        ``min_similarity`` are the same as keywords).
        ``rerank`` (True or ``RerankOptions``; ``rerank_depth`` as a keyword) re-scores the best
        candidates with the retriever's reranker (``RerankerNotConfiguredError`` when it has
        none). ``where`` (``SearchFilter``) restricts the results to matching chunks, exactly:
        ``top_k`` counts only those. Each result's ``highlights`` locate the query's words in
        its text (``highlight=False`` skips that work, for evaluations that only rank).
        ``prefix`` lets the last word match the indexed terms it begins (search as you type);
        ``fuzzy`` lets a word whose term is absent or rare match terms a typo away; both at a
        lower weight than exact matches, in modes bm25 and hybrid (adr/0046).
        """
        started = time.perf_counter()
        plan = plan_search(
            query,
            top_k,
            mode,
            default_mode=self.default_mode,
            reranker=self.reranker,
            score_threshold=score_threshold,
            hybrid=hybrid,
            rerank=rerank,
            rrf_k=rrf_k,
            depth=depth,
            weights=weights,
            min_similarity=min_similarity,
            rerank_depth=rerank_depth,
            prefix=prefix,
            fuzzy=fuzzy,
        )
        mode, k, options, want, leg_depth = (
            plan.mode,
            plan.k,
            plan.options,
            plan.want,
            plan.leg_depth,
        )
        floor, floor_source = -math.inf, None
        if mode != "bm25":
            self._dense.require(mode)
            floor, floor_source = self._dense.floor(mode, plan.min_similarity)
        trace = plan.trace(self._reader.generation)
        trace.mode_note = None if plan.asked else self._default_note()
        allowed = None
        if where is not None:
            allowed = self._filters.allowed(where)
            trace.filter = {**where.to_dict(), "chunks": len(allowed)}
        mark = started
        if plan.prefix or plan.fuzzy:
            expanded = expand_query(
                query,
                self.analyzer,
                self._lexicon,
                self._lexical,
                prefix=plan.prefix,
                fuzzy=plan.fuzzy,
            )
            terms, matched = expanded.terms, expanded.matched_terms
            trace.expansions = expanded.trace()
        else:
            terms = self.analyzer.terms(query)
            matched = set(terms)
        try:
            lexical: list[tuple[int, float]] = []
            if mode != "dense":
                threshold = score_threshold if mode == "bm25" else None
                hits = self._lexical.top_k(
                    terms, leg_depth, self._tie_keys, score_threshold=threshold, allowed=allowed
                )
                lexical = hits.pairs()
                trace.query_terms = len(terms)
                trace.accelerator = self._lexical.accelerator
                trace.path = hits.path
                trace.bm25 = {"k1": self._lexical.params.k1, "b": self._lexical.params.b}
                mark = _lap(trace.timings_ms, "bm25", mark)
            if mode == "bm25":
                ranked = lexical
            elif mode == "dense":
                found = self._dense.search(
                    query, mode, want, min_score=score_threshold, tie_keys=self._tie_keys,
                    allowed=allowed,
                )  # fmt: skip
                trace.dense_best = found[0][1] if found else None
                ranked = found if dense_has_evidence(trace.dense_best, floor) else []
                trace.abstained = not ranked
                mark = _lap(trace.timings_ms, "dense", mark)
            else:
                assert options is not None
                share = lexical_share(
                    lexical[0][1] if lexical else None, terms, self._lexical.term_idf
                )
                fused = self._hybrid(
                    query, lexical, share, leg_depth, options, floor, allowed, trace
                )
                lowest = -math.inf if score_threshold is None else score_threshold
                ranked = [(key, score) for key, score in fused if score >= lowest][:want]
                mark = _lap(trace.timings_ms, "dense_and_fusion", mark)
        except KeyError as exc:
            raise self._missing_record(int(exc.args[0])) from None
        if mode != "bm25":
            trace.vector_store = self._dense.vector_store
            trace.min_similarity = floor
            trace.floor_source = floor_source
        results = self._join(ranked)
        mark = _lap(trace.timings_ms, "join", mark)
        if plan.reranking is not None:
            assert self.reranker is not None  # rerank_candidates refused the search otherwise
            results = checked_rerank(self.reranker, query, results, k)
            trace.stage = "rerank"
            trace.rerank_depth = want
            mark = _lap(trace.timings_ms, "rerank", mark)
        if highlight and matched:
            results = with_highlights(self.analyzer, matched, results)
            mark = _lap(trace.timings_ms, "highlight", mark)
        trace.score_threshold = score_threshold
        trace.timings_ms["total"] = round((mark - started) * 1000, 3)
        return SearchResponse(
            query=query, results=tuple(results), metadata=trace.to_dict(), trace=trace
        )

    def _hybrid(
        self,
        query: str,
        lexical: list[tuple[int, float]],
        share: float,
        depth: int,
        options: HybridOptions,
        floor: float,
        allowed: frozenset[int] | None,
        trace: SearchTrace,
    ) -> list[tuple[int, float]]:
        """Fuse the legs' evidence; nothing when the dense leg has none (its best similarity
        is under the floor) and BM25's best is under its share of the query (adr/0049)."""
        found = self._dense.search(
            query, "hybrid", depth, min_score=None, tie_keys=self._tie_keys, allowed=allowed
        )
        trace.dense_best = found[0][1] if found else None
        dense = found if dense_has_evidence(trace.dense_best, floor) else []
        minimum, source = self._dense.lexical_share(options.min_lexical_share)
        abstained = not dense and (not lexical or share < minimum)
        trace.legs = {"bm25": len(lexical), "dense": len(dense)}
        trace.lexical_share = share
        trace.fusion = {
            "rrf_k": options.rrf_k,
            "depth": depth,
            "weights": list(options.weights),
            "min_lexical_share": minimum,
            "lexical_share_source": source,
        }
        trace.abstained = abstained
        if abstained:
            return []
        return reciprocal_rank_fusion(
            [lexical, dense],
            tie_keys=self._tie_keys,
            rrf_k=options.rrf_k,
            weights=options.weights,
        )

    def _missing_record(self, key: int) -> MissingRecordError:
        return MissingRecordError(
            f"collection {self._location}: an index hit (chunk key {key}) has no chunk or "
            "document record; the collection is damaged: `groundkit check` lists what is wrong; "
            "rebuild it by ingesting into a new collection",
            subject=self._location,
            verdict="unresolvable",
        )

    def _join(self, ranked: list[tuple[int, float]]) -> list[SearchResult]:
        triples = [(key, score, rank) for rank, (key, score) in enumerate(ranked, start=1)]
        return join_results(self._records, triples, self._missing_record)

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


def _lap(timings: dict[str, float], name: str, since: float) -> float:
    now = time.perf_counter()
    timings[name] = round((now - since) * 1000, 3)
    return now
