"""Reranking, the pure half: a safe sigmoid, and results rebuilt from a model's logits.

A ``Reranker`` (a cross-encoder in the extras, or anything else) re-scores candidate results;
``LogitReranker`` adapts any function returning one logit per passage.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Protocol, runtime_checkable

from groundkit.contracts import SearchResult

__all__ = ["LogitReranker", "Reranker", "rerank_by_logits", "sigmoid"]


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
