"""Exact top-k with a content-derived tie-break, whatever the order candidates arrive in."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence

from groundkit.store.base import TieKey

__all__ = ["select_top_k"]


def select_top_k(
    scores: Mapping[int, float],
    k: int,
    tie_keys: Callable[[Sequence[int]], Mapping[int, TieKey]],
) -> list[tuple[int, float]]:
    """The ``k`` best (key, score) pairs, best first; equal scores ordered by tie key.

    Every candidate tied with the k-th score is considered, so the cut is exact. Keys that
    ``tie_keys`` leaves out raise ``KeyError`` (the caller decides how to fail).
    """
    if k <= 0 or not scores:
        return []
    if len(scores) <= k:
        candidates = list(scores.items())
    else:
        kth = heapq.nlargest(k, scores.values())[-1]
        candidates = [(key, score) for key, score in scores.items() if score >= kth]
    ties = tie_keys([key for key, _ in candidates])
    candidates.sort(key=lambda item: (-item[1], ties[item[0]]))
    return candidates[:k]
