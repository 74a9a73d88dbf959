"""A search request resolved once: the same steps for one collection's search and a sharded
one's (mode, validation, fusion and rerank settings, how many candidates to fetch)."""

from __future__ import annotations

from dataclasses import dataclass

from groundkit.contracts import SearchTrace
from groundkit.retrieval.request import (
    HybridOptions,
    RerankOptions,
    SearchMode,
    check_expansion,
    hybrid_options,
    leg_depth_for,
    rerank_options,
    validate_request,
)
from groundkit.retrieval.rerank import Reranker, rerank_candidates

__all__ = ["SearchPlan", "plan_search"]

_STAGES = {"bm25": "bm25", "dense": "dense", "hybrid": "fusion"}


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """What a search will do: ``want`` results before a rerank, ``leg_depth`` per hybrid leg."""

    mode: SearchMode
    asked: bool
    """Whether the caller named the mode (else the collection's default)."""
    k: int
    options: HybridOptions | None
    reranking: RerankOptions | None
    want: int
    leg_depth: int
    min_similarity: float | None
    """The similarity floor given for a dense or hybrid search (None: the recorded one)."""
    prefix: bool = False
    """Whether the last word also matches the indexed terms it begins."""
    fuzzy: bool = False
    """Whether a word also matches indexed terms a typo away, where its own is absent or rare."""

    def trace(self, generation: int) -> SearchTrace:
        return SearchTrace(
            stage=_STAGES[self.mode],
            mode=self.mode,
            generation=generation,
            mode_source="search" if self.asked else "collection",
        )


def plan_search(
    query: str,
    top_k: int | None,
    mode: SearchMode | None,
    *,
    default_mode: SearchMode,
    reranker: Reranker | None,
    score_threshold: float | None,
    hybrid: HybridOptions | None,
    rerank: bool | RerankOptions,
    rrf_k: int | None,
    depth: int | None,
    weights: tuple[float, float] | None,
    min_similarity: float | None,
    rerank_depth: int | None,
    prefix: bool = False,
    fuzzy: bool = False,
) -> SearchPlan:
    """The request checked and resolved (``InvalidQueryError``, ``ConfigurationError`` or
    ``RerankerNotConfiguredError`` when refused as given)."""
    chosen = default_mode if mode is None else mode
    k = validate_request(query, top_k, chosen, score_threshold)
    options = hybrid_options(chosen, hybrid, rrf_k, depth, weights, min_similarity)
    reranking = rerank_options(rerank, rerank_depth)
    want = rerank_candidates(reranker, reranking, k)
    check_expansion(chosen, prefix, fuzzy)
    return SearchPlan(
        mode=chosen,
        asked=mode is not None,
        k=k,
        options=options,
        reranking=reranking,
        want=want,
        leg_depth=want if options is None else leg_depth_for(options.depth, want),
        min_similarity=options.min_similarity if options is not None else min_similarity,
        prefix=prefix,
        fuzzy=fuzzy,
    )
