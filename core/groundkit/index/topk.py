"""Exact top-k with a content-derived tie-break, whatever the order candidates arrive in.

Results come as two columns, keys and scores, best first: deep cuts (k = 1000) would
otherwise build a tuple per hit, which cost more than selecting them (adr/0015).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from itertools import compress
from operator import eq, neg

from groundkit.index.ties import tie_ranks_of
from groundkit.store.base import TieKey

__all__ = [
    "Ranked",
    "TieKeys",
    "order_ties",
    "select_top_k",
    "tie_order_keys",
    "tied_order",
    "top_k_columns",
]

TieKeys = Callable[[Sequence[int]], Mapping[int, TieKey]]
Ranked = tuple[list[int], list[float]]
"""Keys and their scores, best first."""
_HEAP_FRACTION = 8
"""Find the k-th score with a heap when k is under 1/8 of the candidates, else by sorting."""
_SAMPLED_FRACTION = 2
"""With 2 to 8 candidates per wanted key, first drop the ones under a floor estimated from a
sample (``_at_least_k_above_a_sampled_floor``)."""
_SAMPLE_STRIDE = 4


def select_top_k(
    scores: Mapping[int, float],
    k: int,
    tie_keys: TieKeys,
    score_threshold: float | None = None,
) -> list[tuple[int, float]]:
    """``top_k_columns`` as (key, score) pairs."""
    keys, values = top_k_columns(scores, k, tie_keys, score_threshold)
    return list(zip(keys, values, strict=True))


def top_k_columns(
    scores: Mapping[int, float],
    k: int,
    tie_keys: TieKeys,
    score_threshold: float | None = None,
) -> Ranked:
    """The ``k`` best keys scoring at least ``score_threshold`` and their scores, best first;
    equal scores ordered by tie key.

    Every candidate tied with the k-th score is considered, so the cut is exact.
    """
    if k <= 0 or not scores:
        return [], []
    floor = score_threshold
    if len(scores) > k * _HEAP_FRACTION:
        kth = heapq.nlargest(k, scores.values())[-1]
        floor = kth if floor is None else max(floor, kth)
    elif len(scores) >= k * _SAMPLED_FRACTION:
        sampled = _at_least_k_above_a_sampled_floor(scores, k, floor)
        if sampled is not None:
            return _ranked(sampled, scores, k, tie_keys)
    if floor is None:
        keys = list(scores)
    else:  # over items, not keys: sequential in memory (a lookup per key misses the cache)
        keys = [key for key, score in scores.items() if score >= floor]
    return _ranked(keys, scores, k, tie_keys)


def _ranked(keys: list[int], scores: Mapping[int, float], k: int, tie_keys: TieKeys) -> Ranked:
    """The first ``k`` of ``keys`` by descending score, ties in tie-key order."""
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


def _at_least_k_above_a_sampled_floor(
    scores: Mapping[int, float], k: int, floor: float | None
) -> list[int] | None:
    """The keys scoring at least a floor that about ``k * 9/8`` of them reach, estimated from
    every ``_SAMPLE_STRIDE``-th score; ``None`` when fewer than ``k`` do (the caller then
    keeps every candidate).

    Sorting a quarter of the scores and one pass over them cost less than sorting all of
    them by key; and when k keys reach a floor, the k-th best score is at or above it, so
    nothing that belongs to the top k (or its tied run) is dropped.
    """
    sample = sorted(list(scores.values())[::_SAMPLE_STRIDE], reverse=True)
    guess = sample[min(len(sample) - 1, k * 9 // 8 // _SAMPLE_STRIDE)]
    if floor is not None and floor >= guess:
        return None
    keys = [key for key, score in scores.items() if score >= guess]
    return keys if len(keys) >= k else None


def order_ties(
    keys: list[int],
    values: list[float],
    k: int,
    tie_keys: TieKeys,
) -> None:
    """Put each run of equal ``values`` (sorted descending) in tie-key order, in place.

    Only runs that start within the first ``k`` are ordered. Finding the tied keys happens
    in C; they are ordered among themselves, then put back into the places they held, so each
    run keeps its block. A key without a tie key raises ``KeyError``.
    """
    repeated = set(compress(values[1:], map(eq, values[1:], values[:-1])))
    if not repeated:
        return
    if len(values) > k:  # a run starts within the first k iff it reaches the k-th place
        repeated = {value for value in repeated if value >= values[k - 1]}
    places = list(compress(range(len(values)), map(repeated.__contains__, values)))
    tied = list(map(keys.__getitem__, places))
    tied_values = list(map(values.__getitem__, places))
    order = tie_order_keys(tied, tie_keys)
    ordered = sorted(zip(map(neg, tied_values), order, tied, strict=True))
    for place, (_, _, key) in zip(places, ordered, strict=True):
        keys[place] = key


def tie_order_keys(tied: Sequence[int], tie_keys: TieKeys) -> list[int] | list[TieKey]:
    """What orders ``tied`` by tie key: each one's snapshot-wide rank where ``tie_keys`` has
    them (``CachedTieKeys.ranks``), else its tie key. Equal tie keys (the same file under two
    roots) are left to the chunk key, as the ranks are. A key without a tie key (or a rank)
    raises ``KeyError``."""
    tie_ranks = tie_ranks_of(tie_keys)
    if tie_ranks is None:
        return list(map(tie_keys(tied).__getitem__, tied))
    try:
        ranks = list(map(tie_ranks.__getitem__, tied))
    except IndexError:
        ranks = [-1]
    if min(ranks, default=0) < 0:
        raise KeyError(_first_unranked(tied, tie_ranks))
    return ranks


def tied_order(tied: Sequence[int], tie_keys: TieKeys) -> list[int]:
    """Each of ``tied``'s place among them in (tie key, chunk key) order."""
    order = tie_order_keys(tied, tie_keys)
    ranks = [0] * len(tied)
    for place, (_, _, at) in enumerate(sorted(zip(order, tied, range(len(tied)), strict=True))):
        ranks[at] = place
    return ranks


def _first_unranked(tied: Sequence[int], tie_ranks: Sequence[int]) -> int:
    return next(key for key in tied if not 0 <= key < len(tie_ranks) or tie_ranks[key] < 0)
