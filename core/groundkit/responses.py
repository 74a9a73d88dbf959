"""What a search answers: ``SearchResponse`` (its results, their pages when grouped, and how
the answer was produced, ``SearchTrace``). The results themselves are ``contracts.SearchResult``.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from groundkit.contracts import SearchResult, frozen_mapping

__all__ = ["ResultGroup", "SearchResponse", "SearchTrace"]


@dataclass(frozen=True, slots=True)
class ResultGroup:
    """One source page of a grouped search: its best passages, best first (each a full
    result with its citation), and the page's ``score``."""

    document_id: str
    """The page's document (``Document.document_id``)."""
    source: str
    """The page's source path, as its results' citations give it."""
    results: tuple[SearchResult, ...]
    """Its best passages, best first, each a full cited result."""
    score: float
    """The page's rank score: its best passage's plus half its second's (a negative second
    adds nothing), among the passages ranked (``grouping.page_score``, adr/0074)."""

    def __post_init__(self) -> None:
        results = tuple(self.results)
        if not results or any(r.document_id != self.document_id for r in results):
            raise ValueError("ResultGroup: results must be one document's, at least one")
        object.__setattr__(self, "results", results)
        if not math.isfinite(self.score):
            raise ValueError(f"ResultGroup: score must be finite, got {self.score}")


@dataclass(frozen=True, slots=True)
class SearchResponse:
    """The ranked results of one query, best first, with how they were produced.

    A grouped search (``SearchRequest.group``) also has ``groups``, one per page, best page
    first; ``results`` then lists the same passages page by page."""

    query: str
    """The query as asked."""
    results: tuple[SearchResult, ...]
    """The ranked results, best first (empty when nothing matched)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """How the results were produced (``SearchTrace.to_dict()``): mode, stage, timings."""
    trace: SearchTrace | None = field(default=None, compare=False)
    """The typed form of ``metadata`` (None for a response built by hand)."""
    groups: tuple[ResultGroup, ...] | None = None
    """One entry per source page, best page first, for a grouped search; else None."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "results", tuple(self.results))
        object.__setattr__(self, "metadata", frozen_mapping(self.metadata))
        if self.groups is not None:
            groups = tuple(self.groups)
            flat = [r.chunk_id for g in groups for r in g.results]
            if flat != [r.chunk_id for r in self.results]:
                raise ValueError("SearchResponse: results must be the groups' passages in order")
            object.__setattr__(self, "groups", groups)

    @property
    def total_results(self) -> int:
        return len(self.results)

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape (stable keys; see README). A grouped response adds ``groups``: each
        page's ``document_id``, ``source``, ``score`` and ``results``, the positions of its
        passages in ``results``."""
        out: dict[str, Any] = {
            "query": self.query,
            "results": [r.to_dict() for r in self.results],
            "total_results": self.total_results,
            "metadata": dict(self.metadata),
        }
        if self.groups is not None:
            out["groups"] = []
            at = 0
            for group in self.groups:
                n = len(group.results)
                out["groups"].append(
                    {
                        "document_id": group.document_id,
                        "source": group.source,
                        "score": group.score,
                        "results": list(range(at, at + n)),
                    }
                )
                at += n
        return out


@dataclass(slots=True)
class SearchTrace:
    """How a response was produced; ``to_dict()`` is the response's JSON ``metadata``.

    Fields that do not apply to the mode stay None and are left out of the JSON.
    """

    stage: str
    """The last stage that ordered the results: ``bm25``, ``dense``, ``hybrid`` or ``rerank``."""
    mode: str
    """The mode searched: ``bm25``, ``dense`` or ``hybrid``."""
    generation: int
    """The collection's generation the search read (one per document written)."""
    mode_source: str | None = None
    """``search`` when the request named the mode, ``collection`` for its default."""
    mode_note: str | None = None
    """Why the collection's default mode was not the one used, if it was not."""
    query_terms: int | None = None
    """How many index terms the query analyzed to."""
    accelerator: str | None = None
    """The BM25 scorer used (pure Python, numpy), when known."""
    path: str | None = None
    """Which BM25 path answered (one shard's, or ``sharded:...``)."""
    bm25: dict[str, float] | None = None
    """The BM25 parameters scored with (``k1``, ``b``)."""
    legs: dict[str, int] | None = None
    """Hybrid: how many candidates each leg (``bm25``, ``dense``) gave the fusion."""
    dense_best: float | None = None
    """Dense and hybrid: the best similarity found."""
    lexical_share: float | None = None
    """Hybrid: the best BM25 score over the query's ideal one (its evidence without dense);
    bm25: the same over its most specific words, where a bar applies (adr/0060, adr/0071)."""
    lexical_bar: dict[str, Any] | None = None
    """bm25: the bar applied (``min_lexical_share``, None where the recorded one does not
    separate) and its ``source`` (``self-calibrated``, ``collection``, or ``search``: the
    request's ``lexical_bar``, adr/0079)."""
    fusion: dict[str, Any] | None = None
    """Hybrid: the fusion's settings (``rrf_k``, depth, weights)."""
    min_similarity: float | None = None
    """Dense and hybrid: the similarity floor applied."""
    floor_source: str | None = None
    """Where that floor came from (the request, the collection's calibration, the embedder)."""
    abstained: bool | None = None
    """True when no result was given because no passage had enough evidence."""
    absent_name: str | None = None
    """bm25: the word that names a thing the collection lacks (by its capitals: ``FastAPI``),
    for which the search said nothing here although its share reached the bar (adr/0080)."""
    vector_store: str | None = None
    """The vector store searched (``exact``, ``usearch``)."""
    rerank_depth: int | None = None
    """With ``rerank``: how many candidates the reranker re-scored."""
    score_threshold: float | None = None
    """The score under which results were dropped, if one was asked."""
    filter: dict[str, Any] | None = None
    """The ``where`` filter applied, with how many chunks it admits."""
    expansions: dict[str, dict[str, list[str]]] | None = None
    """Words expanded by prefix or typo (``{"fuzzy": {"middlware": ["middlewar"]}}``)."""
    group: dict[str, int] | None = None
    """A grouped search: ``passages`` per page, ``depth`` passages ranked, ``pages`` found."""
    timings_ms: dict[str, float] = field(default_factory=dict)
    """Milliseconds spent in each stage (``bm25``, ``join``, ``total``)."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name in self.__slots__:
            value = getattr(self, name)
            if value is not None or name in _ALWAYS[self.mode]:
                out[name] = value
        return out


_ALWAYS: dict[str, frozenset[str]] = {
    "bm25": frozenset(),
    "dense": frozenset(),
    "hybrid": frozenset({"dense_best"}),
}
"""Fields shown even when None (hybrid's ``dense_best`` is None when the dense leg is empty)."""
