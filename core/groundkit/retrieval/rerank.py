"""Reranking, the pure half: a safe sigmoid, results rebuilt from a model's logits, and the
checked rerank step every search (one collection's or a sharded one's) runs after its join.

A ``Reranker`` (a cross-encoder in the extras, or anything else) re-scores candidate results;
``LogitReranker`` adapts any function returning one logit per passage.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from groundkit.config import DEFAULT_RERANK_DEPTH, MAX_TOP_K
from groundkit.contracts import SearchResult
from groundkit.errors import RerankerNotConfiguredError, RetrievalError
from groundkit.retrieval.request import RerankOptions, bounded_depth

__all__ = [
    "LogitReranker",
    "Reranker",
    "checked_rerank",
    "rerank_by_logits",
    "rerank_candidates",
    "sigmoid",
]


def sigmoid(x: float) -> float:
    """1 / (1 + e^-x) without overflow for any finite ``x``; NaN and infinity are refused."""
    if not math.isfinite(x):
        raise ValueError(f"sigmoid needs a finite logit, got {x!r}")
    if x >= 0:
        return 1.0 / (1.0 + math.exp(-x))
    z = math.exp(x)
    return z / (1.0 + z)


def rerank_by_logits(
    results: Sequence[SearchResult], logits: Sequence[float]
) -> list[SearchResult]:
    """``results`` re-scored by ``sigmoid(logit)``, best first.

    Citations are carried over untouched; metadata keeps ``rerank_logit`` and the earlier
    ``retrieval_score``, and ``rank`` is renumbered. Ordering is by logit (exact even where the
    sigmoid saturates), then by (source, start_offset).
    """
    if len(logits) != len(results):
        raise ValueError(f"{len(logits)} logits for {len(results)} results")
    scored = [
        (float(logit), sigmoid(float(logit)), r) for logit, r in zip(logits, results, strict=True)
    ]
    scored.sort(key=lambda t: (-t[0], t[2].citation.source, t[2].citation.start_offset))
    return [
        replace(
            result,
            score=score,
            metadata={
                **result.metadata,
                "rank": rank,
                "rerank_logit": logit,
                "retrieval_score": result.score,
            },
        )
        for rank, (logit, score, result) in enumerate(scored, start=1)
    ]


@runtime_checkable
class Reranker(Protocol):
    """Re-scores candidate results for a query and keeps the ``top_k`` best."""

    def rerank(
        self, query: str, results: Sequence[SearchResult], top_k: int
    ) -> list[SearchResult]: ...


class LogitReranker:
    """A ``Reranker`` from a function giving one logit per (query, passage)."""

    def __init__(self, score: Callable[[str, Sequence[str]], Sequence[float]]) -> None:
        self._score = score

    def rerank(self, query: str, results: Sequence[SearchResult], top_k: int) -> list[SearchResult]:
        if not results:
            return []
        logits = self._score(query, [r.content for r in results])
        return rerank_by_logits(results, logits)[:top_k]


def rerank_candidates(reranker: Reranker | None, reranking: RerankOptions | None, k: int) -> int:
    """How many results to retrieve: ``k``, or the rerank depth (refused without a reranker)."""
    if reranking is None:
        return k
    if reranker is None:
        raise RerankerNotConfiguredError(
            "rerank was asked for but this retriever has no reranker; pass one with "
            "Searcher.open(..., reranker=...) (groundkit's extras provide cross-encoders), "
            "or search without rerank",
            subject="reranker",
        )
    return bounded_depth(
        "rerank_depth", reranking.depth, DEFAULT_RERANK_DEPTH, f"top_k ({k})", k, MAX_TOP_K
    )


def checked_rerank(
    reranker: Reranker, query: str, results: list[SearchResult], k: int
) -> list[SearchResult]:
    """``reranker``'s ``k`` best of ``results``; refused if it returns more or strangers."""
    reranked = list(reranker.rerank(query, results, k))
    known = {r.chunk_id for r in results}
    strangers = [r.chunk_id for r in reranked if r.chunk_id not in known]
    if strangers or len(reranked) > k:
        raise RetrievalError(
            f"the reranker returned {len(reranked)} results for top_k {k}, "
            f"{len(strangers)} of them not among its candidates; its answer is refused",
            subject="reranker",
        )
    return reranked
