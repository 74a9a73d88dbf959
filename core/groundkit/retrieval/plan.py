"""A search request resolved against its searcher: the mode (the request's, else the
collection's default), the checks that depend on it, and how many candidates to fetch."""

from __future__ import annotations

from dataclasses import dataclass

from groundkit.responses import SearchTrace
from groundkit.retrieval.request import SearchMode, SearchRequest, leg_depth_for
from groundkit.retrieval.rerank import Reranker, rerank_candidates

__all__ = ["SearchPlan", "plan_search"]

_STAGES = {"bm25": "bm25", "dense": "dense", "hybrid": "fusion"}


@dataclass(frozen=True, slots=True)
class SearchPlan:
    """What a search will do: ``want`` results before a rerank (and grouping), ``leg_depth``
    per leg."""

    request: SearchRequest
    """The request, its mode resolved."""
    mode: SearchMode
    asked: bool
    """Whether the caller named the mode (else the collection's default)."""
    want: int
    leg_depth: int

    def trace(self, generation: int) -> SearchTrace:
        return SearchTrace(
            stage=_STAGES[self.mode],
            mode=self.mode,
            generation=generation,
            mode_source="search" if self.asked else "collection",
        )


def plan_search(
    request: SearchRequest, *, default_mode: SearchMode, reranker: Reranker | None
) -> SearchPlan:
    """``request`` resolved (``ConfigurationError`` for settings its mode does not use,
    ``RerankerNotConfiguredError`` for a rerank without a reranker)."""
    mode = default_mode if request.mode is None else request.mode
    resolved = request.with_mode(mode)
    want = rerank_candidates(reranker, request.rerank, request.passages)
    hybrid = resolved.hybrid
    if mode == "hybrid":
        leg_depth = leg_depth_for(None if hybrid is None else hybrid.depth, want)
    else:
        leg_depth = want
    return SearchPlan(
        request=resolved, mode=mode, asked=request.mode is not None, want=want, leg_depth=leg_depth
    )
