"""How one search runs over the shards a transport reaches: the body of ``Searcher.search``.

A search reduces the query terms' statistics, has every shard score with them (filtered there,
before the merge), merges by (score, tie key), joins only the kept hits to their records, and
reranks the merged candidates once: BM25 hits of N shards are bit-identical to one
collection's; dense similarities need no statistics; hybrid fuses the two merged lists, and
abstains when neither leg has evidence (adr/0008, adr/0049). Each call to the shards is a step
(``retrieval/steps.py``) the transport carries (adr/0063).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.question_words import content_terms, question_terms
from groundkit.config import BM25Params
from groundkit.errors import ConfigurationError, ShardUnavailableError
from groundkit.manifest import EmbeddingIdentity
from groundkit.responses import SearchResponse, SearchTrace
from groundkit.retrieval import abstention
from groundkit.retrieval.abstention import lexical_share
from groundkit.retrieval.dense import DEFAULT_MODE_NOTE
from groundkit.retrieval.expansion import ExpandedQuery
from groundkit.retrieval.grouping import group_results, grouped
from groundkit.retrieval.join import with_highlights
from groundkit.retrieval.merge import ShardHit, merge_hits
from groundkit.retrieval.plan import SearchPlan, plan_search
from groundkit.retrieval.request import HybridOptions, SearchFilter, SearchMode, SearchRequest
from groundkit.retrieval.rerank import Reranker, checked_rerank
from groundkit.retrieval.shard_settings import ShardSettings
from groundkit.retrieval.shard_stats import ShardStatistics, idf_of, reduce_statistics
from groundkit.retrieval.steps import (
    Admitted,
    DefaultMode,
    Dense,
    Lexical,
    Statistics,
    Step,
    TermIdf,
)
from groundkit.retrieval.transport import Transport, all_answered, fuse_hits, join_hits, store_names

if TYPE_CHECKING:  # the sharded side is imported where one is opened: a search needs none
    from groundkit.shards.shard_manifest import ShardManifest

__all__ = ["Execution", "Expander", "Layout", "sharded_layout"]

T = TypeVar("T")

QueryTerms = tuple[list[str], set[str], frozenset[str], list[str]]
"""A query's terms searched, those highlighted, those stood for, those bm25's evidence weighs."""
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


class Execution:
    """One ``Searcher``'s search over ``transport``: the steps, the merges, the trace."""

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
        self.settings = ShardSettings(self.ask, layout)

    @property
    def default_mode(self) -> SearchMode:
        """The mode of a search that names none: ``hybrid`` on a collection bound to a
        semantic embedder the shards have (adr/0025), else ``bm25``; asked once."""
        if self._default_mode is None:
            self._default_mode = self.ask([self.layout.reference], DefaultMode())[0]
        return self._default_mode

    def ask(self, shards: Sequence[int], step: Step[T]) -> list[T]:
        """``step``'s answer from each of ``shards``, refused unless every one answered."""
        return all_answered(self.transport.send([(shard, step) for shard in shards]), len(shards))

    def every(self, step: Step[T]) -> list[T]:
        """``step``'s answer from every shard, in shard order."""
        return self.ask(self._every, step)

    def run(self, request: SearchRequest) -> SearchResponse:
        """``request`` answered (``Searcher.search``'s body)."""
        started = time.perf_counter()
        # the default is asked for only where the request names no mode (it may make a model)
        default = self.default_mode if request.mode is None else request.mode
        plan = plan_search(request, default_mode=default, reranker=self.reranker)
        request, mode = plan.request, plan.mode
        floor, floor_source = -math.inf, None
        if mode != "bm25":  # dense evidence is judged on the best similarity (adr/0049)
            floor, floor_source = self.settings.floor(mode, request.min_similarity)
        trace = plan.trace(self.layout.generation)
        if not plan.asked and self.layout.semantic and self.default_mode == "bm25":
            trace.mode_note = DEFAULT_MODE_NOTE  # its embedder is not available here
        where = request.where
        if where is not None:
            admitted = self.every(Admitted(where))
            trace.filter = {**where.to_dict(), "chunks": sum(admitted)}
        terms, matched, *_ = found = self._terms(request, mode, trace)
        mark = started
        # tie keys order a merge of several lists and a fusion; one list is in order already
        ties = self.layout.shards > 1 or mode == "hybrid"
        lexical: list[ShardHit] = []
        reduced: ShardStatistics | None = None
        if mode != "dense":
            reduced, lexical = self._lexical(request, terms, plan.leg_depth, ties, trace)
            if mode == "bm25":
                lexical = self._bm25_evidence(lexical, found, request, trace)
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
            trace.min_similarity, trace.floor_source = floor, floor_source
        results = join_hits(self.transport, self.layout.shards, hits, scores)
        mark = _lap(trace.timings_ms, "join", mark)
        if request.rerank is not None:
            assert self.reranker is not None  # plan_search refused the search otherwise
            results = checked_rerank(self.reranker, request.query, results, request.passages)
            trace.stage = "rerank"
            trace.rerank_depth = plan.want
            mark = _lap(trace.timings_ms, "rerank", mark)
        pages_found: list[tuple[float, int]] | None = None
        if request.group is not None:
            pages = grouped(results, request.top_k, request.group.passages)
            results = [result for _, page in pages for result in page]
            pages_found = [(score, len(page)) for score, page in pages]
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
            groups=None if pages_found is None else group_results(results, pages_found),
        )

    def _terms(self, request: SearchRequest, mode: SearchMode, trace: SearchTrace) -> QueryTerms:
        """The query's terms (with prefix and typo expansions when asked), the terms whose
        words the highlights mark, the terms of the words that were expanded, and the terms
        bm25's evidence weighs (a guessed word's own, adr/0077). In bm25 mode a question's
        framing words ("how do I") are left out where other words remain (adr/0060,
        adr/0065)."""
        framing = self.question_terms() if mode == "bm25" else frozenset()
        if not (request.prefix or request.fuzzy):
            terms = content_terms(self.analyzer.terms(request.query), framing)
            return terms, set(terms), frozenset(), terms
        if self._expand is None:
            raise ConfigurationError(
                "prefix and fuzzy search work on one collection; a sharded collection does not "
                "gather a lexicon across its shards yet: search without them"
            )
        expanded = self._expand(request.query, prefix=request.prefix, fuzzy=request.fuzzy)
        trace.expansions = expanded.trace()
        stood = expanded.stood_for(self.analyzer.terms)
        expanded = expanded.without(framing)
        return expanded.terms, expanded.matched_terms, stood, expanded.evidence_terms()

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
        answers = self.every(Lexical(terms, depth, df, threshold, request.where, ties))
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
        found: QueryTerms,
        request: SearchRequest,
        trace: SearchTrace,
    ) -> list[ShardHit]:
        """``lexical``, or nothing when BM25's best share of the query's evidence terms (a
        guessed word's own, adr/0077) is under the search's ``lexical_bar``, else under a bar
        the collection's calibration found to separate (adr/0060, adr/0069, adr/0079), or
        where a bar over 0 applies and the query names a thing the collection lacks
        (adr/0080)."""
        given = request.lexical_bar
        bar, source = self.settings.bm25_bar() if given is None else (given, "search")
        if source == "none":
            return lexical
        searched, _, stood, evidence = found
        best = lexical[0].score if lexical and evidence == searched else None
        share = self.lexical_evidence(evidence, best, stood, where=request.where)
        trace.lexical_share = share
        trace.lexical_bar = {"min_lexical_share": bar, "source": source}
        trace.abstained = bar is not None and share < bar  # 0: no match says no results
        if bar and not trace.abstained:  # a name the collection lacks (adr/0080)
            languages, framing = self.analyzer.languages, self.question_terms()
            name = abstention.absent_name(
                request.query, languages, self.analyzer.terms, self._held, stood, framing
            )
            trace.absent_name, trace.abstained = name, name is not None
        return [] if trace.abstained else lexical

    def lexical_evidence(
        self,
        query: str | list[str],
        best: float | None = None,
        stood: frozenset[str] = frozenset(),
        where: SearchFilter | None = None,
    ) -> float:
        """bm25's evidence for abstaining (adr/0060): the best score of the query's content
        terms over their ideal, the ``EVIDENCE_TERMS`` highest idf (adr/0071); 0.0 without a
        match. ``query``: text, or terms with their ``best`` (a search reuses its hits; without
        it, found under the search's filter ``where``). A term of ``stood`` (a word an
        expansion stood for, adr/0069) the collection lacks leaves the ideal."""
        terms = self.analyzer.terms(query) if isinstance(query, str) else query
        if not terms:
            return 0.0
        content = content_terms(terms, self.question_terms())
        held, idf = self._term_statistics(content)
        df = {} if self.layout.totals is None else held  # one collection scores with its own
        lacking = {term for term in content if not held.get(term)}
        if content != terms or isinstance(query, str) or best is None:
            found = self.every(Lexical(content, 1, df, None, where, self.layout.shards > 1))
            hits = merge_hits([hits for hits, _ in found], 1)
            best = hits[0].score if hits else None
        ideal = [term for term in content if term not in stood or term not in lacking]
        return lexical_share(best, ideal, idf, abstention.EVIDENCE_TERMS)

    def _term_statistics(
        self, terms: list[str]
    ) -> tuple[Mapping[str, int], Callable[[str], float]]:
        """The chunks holding each of ``terms`` and the idf a search scores them with: one
        collection's own (adr/0069), or reduced over the shards."""
        if self.layout.totals is None:
            answer = self.ask([self.layout.reference], TermIdf(terms))[0]
            known = dict(zip(terms, answer, strict=True))
            idf = {term: weight for term, (_, weight) in known.items()}.__getitem__
            return {term: count for term, (count, _) in known.items()}, idf
        reduced = self._statistics(terms)
        return reduced.df, idf_of(reduced)

    def _held(self, terms: list[str]) -> Mapping[str, int]:
        return self._term_statistics(terms)[0]

    def question_terms(self) -> frozenset[str]:
        """The terms of the question words of the collection's languages (adr/0060)."""
        if self._framing_terms is None:
            self._framing_terms = question_terms(self.analyzer.languages, self.analyzer.terms)
        return self._framing_terms

    def _statistics(self, terms: list[str]) -> ShardStatistics:
        """The terms' statistics reduced over every shard, checked against the manifest's
        totals where there is one (a shard missing or out of step is refused)."""
        reduced = reduce_statistics(self.every(Statistics(terms)))
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
        answers = self.every(Dense(request.query, mode, k, lowest, request.where, ties))
        found = merge_hits([hits for hits, _ in answers], k)
        trace.vector_store = store_names(answers)
        trace.dense_best = found[0].score if found else None
        return found if abstention.dense_has_evidence(trace.dense_best, floor) else []

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
        minimum, source = self.settings.lexical_share(options.min_lexical_share)
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


def _lap(timings: dict[str, float], name: str, since: float) -> float:
    now = time.perf_counter()
    timings[name] = round((now - since) * 1000, 3)
    return now
