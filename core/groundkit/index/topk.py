"""Exact top-k with a content-derived tie-break, whatever the order candidates arrive in."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence

from groundkit.store.base import TieKey

__all__ = ["rank_by_score", "select_top_k"]

TieKeys = Callable[[Sequence[int]], Mapping[int, TieKey]]


def select_top_k(scores: Mapping[int, float], k: int, tie_keys: TieKeys) -> list[tuple[int, float]]:
    """The ``k`` best (key, score) pairs, best first; equal scores ordered by tie key.

    Every candidate tied with the k-th score is considered, so the cut is exact.
    """
    if k <= 0 or not scores:
        return []
    if len(scores) <= k:
        candidates = list(scores.items())
    else:
        kth = heapq.nlargest(k, scores.values())[-1]
        candidates = [(key, score) for key, score in scores.items() if score >= kth]
    candidates.sort(key=lambda item: -item[1])
    return rank_by_score(candidates, k, tie_keys)


def rank_by_score(
    candidates: list[tuple[int, float]], k: int, tie_keys: TieKeys
) -> list[tuple[int, float]]:
    """The first ``k`` of ``candidates`` (sorted by descending score), ties put in tie-key order.

    Tie keys are fetched only for runs of equal scores, which real scores rarely have; a key
    that ``tie_keys`` leaves out raises ``KeyError`` (the caller decides how to fail).
    """
    tied: list[int] = []
    runs: list[tuple[int, int]] = []
    start = 0
    for i in range(1, len(candidates) + 1):
        if i == len(candidates) or candidates[i][1] != candidates[start][1]:
            if i - start > 1 and start < k:
                runs.append((start, i))
                tied.extend(key for key, _ in candidates[start:i])
            start = i
    if runs:
        ties = tie_keys(tied)
        for begin, end in runs:
            candidates[begin:end] = sorted(candidates[begin:end], key=lambda item: ties[item[0]])
    return candidates[:k]
