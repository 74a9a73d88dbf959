"""Exact top-k selection among scored candidates, shared by the index, vectors and extras.

Whatever order candidates arrive in, the result is the ``k`` best, best first, with equal
scores in tie order (``ties.order_ties``). Results come as two columns, keys and scores: a
deep cut (k = 1000) would otherwise build a tuple per hit (adr/0015).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping

from groundkit.index.lexical_plan import DEFAULT_PLAN, LexicalPlan
from groundkit.index.ties import TieKeys, by_chunk_key, order_ties

__all__ = ["Ranked", "select_top_k", "top_k_columns"]

Ranked = tuple[list[int], list[float]]
"""Keys and their scores, best first."""


def select_top_k(
    scores: Mapping[int, float],
    k: int,
    tie_keys: TieKeys | None = None,
    score_threshold: float | None = None,
) -> list[tuple[int, float]]:
    """``top_k_columns`` as (key, score) pairs; without ``tie_keys``, ties go by chunk key."""
    keys, values = top_k_columns(scores, k, tie_keys or by_chunk_key, score_threshold)
    return list(zip(keys, values, strict=True))


def top_k_columns(
    scores: Mapping[int, float],
    k: int,
    tie_keys: TieKeys,
    score_threshold: float | None = None,
    plan: LexicalPlan = DEFAULT_PLAN,
) -> Ranked:
    """The ``k`` best keys scoring at least ``score_threshold`` and their scores, best first;
    equal scores in tie order. Every candidate tied with the k-th is considered: the cut is
    exact. The plan picks how the k-th score is found (a heap, a sampled floor or a sort)."""
    if k <= 0 or not scores:
        return [], []
    floor = score_threshold
    if len(scores) > k * plan.heap_fraction:
        kth = heapq.nlargest(k, scores.values())[-1]
        floor = kth if floor is None else max(floor, kth)
    elif len(scores) >= k * plan.sampled_fraction:
        sampled = _above_sampled_floor(scores, k, floor, plan.selection_sample_stride)
        if sampled is not None:
            return _ranked(sampled, scores, k, tie_keys)
    if floor is None:
        keys = list(scores)
    else:  # over items, not keys: sequential in memory (a lookup per key misses the cache)
        keys = [key for key, score in scores.items() if score >= floor]
    return _ranked(keys, scores, k, tie_keys)


def _ranked(keys: list[int], scores: Mapping[int, float], k: int, tie_keys: TieKeys) -> Ranked:
    """The first ``k`` of ``keys`` by descending score, ties in tie order."""
    keys.sort(key=scores.__getitem__, reverse=True)
    values = list(map(scores.__getitem__, keys))
    if len(keys) > k:  # keep the run tied with the k-th score, drop the rest
        end = k
        while end < len(values) and values[end] == values[k - 1]:
            end += 1
        del keys[end:], values[end:]
    order_ties(keys, values, k, tie_keys)
    del keys[k:], values[k:]
    return keys, values


def _above_sampled_floor(
    scores: Mapping[int, float], k: int, floor: float | None, stride: int
) -> list[int] | None:
    """The keys scoring at least a floor that about ``k * 9/8`` of them reach, estimated from
    every ``stride``-th score; None when fewer than ``k`` do (then every candidate is kept).
    When k keys reach a floor, the k-th best score is at or above it: nothing is lost."""
    sample = sorted(list(scores.values())[::stride], reverse=True)
    guess = sample[min(len(sample) - 1, k * 9 // 8 // stride)]
    if floor is not None and floor >= guess:
        return None
    keys = [key for key, score in scores.items() if score >= guess]
    return keys if len(keys) >= k else None
