"""Exact top-k with a content-derived tie-break, whatever the order candidates arrive in."""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from functools import partial
from itertools import compress
from operator import eq, itemgetter

from groundkit.store.base import TieKey

__all__ = ["TieKeys", "rank_by_score", "select_top_k"]

TieKeys = Callable[[Sequence[int]], Mapping[int, TieKey]]
_HEAP_FRACTION = 8
"""Find the k-th score with a heap when k is under 1/8 of the candidates, else by sorting."""
_score = itemgetter(1)


def select_top_k(
    scores: Mapping[int, float],
    k: int,
    tie_keys: TieKeys,
    score_threshold: float | None = None,
) -> list[tuple[int, float]]:
    """The ``k`` best (key, score) pairs scoring at least ``score_threshold``, best first;
    equal scores ordered by tie key.

    Every candidate tied with the k-th score is considered, so the cut is exact.
    """
    if k <= 0 or not scores:
        return []
    floor = score_threshold
    if len(scores) > k * _HEAP_FRACTION:
        kth = heapq.nlargest(k, scores.values())[-1]
        floor = kth if floor is None else max(floor, kth)
    if floor is None:
        candidates = list(scores.items())
    else:  # over items, not keys: sequential in memory (a lookup per key misses the cache)
        candidates = [(key, score) for key, score in scores.items() if score >= floor]
    candidates.sort(key=_score, reverse=True)
    if len(candidates) > k:  # keep the run tied with the k-th score, drop the rest
        kth = candidates[k - 1][1]
        end = k
        while end < len(candidates) and candidates[end][1] == kth:
            end += 1
        del candidates[end:]
    return rank_by_score(candidates, k, tie_keys)


def rank_by_score(
    candidates: list[tuple[int, float]], k: int, tie_keys: TieKeys
) -> list[tuple[int, float]]:
    """The first ``k`` of ``candidates`` (sorted by descending score), ties put in tie-key order.

    Tie keys are fetched only for the chunks in runs of equal scores that start within the
    first ``k``; a key that ``tie_keys`` leaves out raises ``KeyError`` (the caller decides how
    to fail). Finding the tied chunks happens in C; they are then ordered among themselves
    and put back into the places they held, so each run keeps its block.
    """
    values = list(map(_score, candidates))
    repeated = set(compress(values[1:], map(eq, values[1:], values[:-1])))
    if not repeated:
        return candidates[:k]
    if len(values) > k:  # a run starts within the first k iff it reaches the k-th place
        repeated = {value for value in repeated if value >= values[k - 1]}
    places = list(compress(range(len(values)), map(repeated.__contains__, values)))
    tied = list(map(candidates.__getitem__, places))
    ties = tie_keys([key for key, _ in tied])
    tied.sort(key=partial(_score_then_tie_key, ties))
    for place, item in zip(places, tied, strict=True):
        candidates[place] = item
    return candidates[:k]


def _score_then_tie_key(
    ties: Mapping[int, TieKey], item: tuple[int, float]
) -> tuple[float, TieKey]:
    return (-item[1], ties[item[0]])
