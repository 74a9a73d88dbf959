"""MaxScore dynamic pruning for the pure-Python BM25 path: exact top-k, fewer postings read.

Terms are taken in order of their largest possible contribution (``weight * max impact``).
Once the k-th best partial score found so far exceeds what all remaining terms together could
add, no chunk unseen so far can enter the top k: the remaining terms are only looked up (by
binary search in their sorted postings) for the chunks still in the running, and chunks that
cannot reach the k-th score even with every remaining term are dropped. Survivors are then
re-scored in the canonical (sorted-term) order, so their scores are bit-identical to
exhaustive scoring (adr/0010-bm25-speed.md).
"""

from __future__ import annotations

import heapq
from array import array
from bisect import bisect_left
from collections.abc import Callable, Sequence

__all__ = ["maxscore_candidates"]

Impacts = Callable[[str], tuple["array[int]", "array[float]"]]
MaxImpact = Callable[[str], float]

_MARGIN = 1e-9
"""Relative slack on every bound comparison: partial sums added in another order may differ
from canonical ones by a few ulps, so a chunk is dropped only when it is clearly out."""


def _impacts_for(
    keys: array[int], impacts: array[float], wanted: Sequence[int]
) -> list[tuple[int, float]]:
    """(key, impact) of each of ``wanted`` that holds the term, in ``wanted``'s order.

    Binary search when few keys are wanted; otherwise one pass over the postings (cheaper
    once ``len(wanted) * log2(df)`` outgrows ``df``).
    """
    if len(wanted) * max(len(keys).bit_length(), 1) < len(keys):
        found = []
        for key in wanted:
            at = bisect_left(keys, key)
            if at < len(keys) and keys[at] == key:
                found.append((key, impacts[at]))
        return found
    members = set(wanted)
    by_key = {k: v for k, v in zip(keys, impacts, strict=True) if k in members}
    return [(key, by_key[key]) for key in wanted if key in by_key]


def maxscore_candidates(
    weights: Sequence[tuple[str, float]], k: int, impacts: Impacts, max_impact: MaxImpact
) -> dict[int, float] | None:
    """Canonical scores of a set of chunks that surely holds the exact top ``k`` (ties included).

    Returns None when pruning would not pay (no term can be skipped); the caller then scores
    exhaustively.
    """
    order = sorted(weights, key=lambda tw: -tw[1] * max_impact(tw[0]))
    bounds = [w * max_impact(t) for t, w in order]
    remaining = [0.0] * (len(order) + 1)
    for i in range(len(order) - 1, -1, -1):
        remaining[i] = remaining[i + 1] + bounds[i]
    partial: dict[int, float] = {}
    split = len(order)
    for i, (term, weight) in enumerate(order):
        if len(partial) >= k:
            threshold = heapq.nlargest(k, partial.values())[-1]
            if remaining[i] < threshold * (1 - _MARGIN):
                split = i
                break
        keys, values = impacts(term)
        get = partial.get
        for key, value in zip(keys, values, strict=True):
            partial[key] = get(key, 0.0) + weight * value
    if split == len(order):
        return None
    threshold = heapq.nlargest(k, partial.values())[-1] * (1 - _MARGIN)
    alive = [key for key, score in partial.items() if score + remaining[split] >= threshold]
    for i in range(split, len(order)):
        term, weight = order[i]
        keys, values = impacts(term)
        for key, impact in _impacts_for(keys, values, alive):
            partial[key] += weight * impact
        bound = threshold - remaining[i + 1]
        alive = [key for key in alive if partial[key] >= bound]
    return _canonical(alive, weights, impacts)


def _canonical(
    keys: Sequence[int], weights: Sequence[tuple[str, float]], impacts: Impacts
) -> dict[int, float]:
    """Scores of ``keys`` summed in the canonical term order, as exhaustive scoring does."""
    scores: dict[int, float] = {}
    get = scores.get
    for term, weight in weights:
        term_keys, values = impacts(term)
        for key, impact in _impacts_for(term_keys, values, keys):
            scores[key] = get(key, 0.0) + weight * impact
    return scores
