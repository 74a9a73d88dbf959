"""Exact top-k selection and its tie-break, against a plain full sort."""

from __future__ import annotations

from collections.abc import Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundkit.index.ties import CachedTieKeys
from groundkit.index.topk import rank_by_score, select_top_k
from groundkit.store.base import TieKey

SCORES = st.dictionaries(st.integers(0, 400), st.sampled_from([0.5, 1.0, 1.5, 2.0, 2.5, 3.25]))


def tie_key(key: int) -> TieKey:
    return (f"{(key * 7919) % 401:05d}", key % 3, f"doc-{key}")  # unrelated to key order


def tie_keys(keys: Sequence[int]) -> dict[int, TieKey]:
    return {key: tie_key(key) for key in keys}


def reference(scores: dict[int, float], k: int, floor: float | None) -> list[tuple[int, float]]:
    kept = [(key, s) for key, s in scores.items() if floor is None or s >= floor]
    return sorted(kept, key=lambda item: (-item[1], tie_key(item[0])))[:k]


@settings(max_examples=300, deadline=None)
@given(SCORES, st.integers(1, 60), st.none() | st.sampled_from([1.0, 2.0, 3.0]))
def test_select_top_k_equals_a_full_sort(
    scores: dict[int, float], k: int, floor: float | None
) -> None:
    assert select_top_k(scores, k, tie_keys, floor) == reference(scores, k, floor)


@settings(max_examples=200, deadline=None)
@given(SCORES, st.integers(1, 60))
def test_rank_by_score_orders_every_run_that_starts_within_k(
    scores: dict[int, float], k: int
) -> None:
    candidates = sorted(scores.items(), key=lambda item: -item[1])  # runs in arbitrary order
    assert rank_by_score(candidates, k, tie_keys) == reference(scores, k, None)


def test_tie_keys_are_fetched_only_for_runs_that_reach_the_top_k() -> None:
    asked: list[int] = []

    def recording(keys: Sequence[int]) -> dict[int, TieKey]:
        asked.extend(keys)
        return tie_keys(keys)

    candidates = [(1, 9.0), (2, 8.0), (3, 8.0), (4, 7.0), (5, 6.0), (6, 6.0)]
    rank_by_score(candidates, 3, recording)
    assert sorted(asked) == [2, 3]
    asked.clear()
    assert rank_by_score([(1, 3.0), (2, 2.0)], 2, recording) == [(1, 3.0), (2, 2.0)]
    assert asked == []


def test_cached_tie_keys_fetch_each_chunk_once_and_keep_missing_ones_missing() -> None:
    fetched: list[list[int]] = []

    def fetch(keys: Sequence[int]) -> dict[int, TieKey]:
        fetched.append(list(keys))
        return {key: tie_key(key) for key in keys if key != 99}

    cached = CachedTieKeys(fetch, limit=4)
    assert cached([1, 2])[2] == tie_key(2)
    assert cached([2, 1, 3])[3] == tie_key(3)
    assert fetched == [[1, 2], [3]]
    with pytest.raises(KeyError):
        cached([99])[99]
    found = cached([3, 5, 6])  # past the limit: starts over, keeping what was asked for
    assert [found[key] for key in (3, 5, 6)] == [tie_key(3), tie_key(5), tie_key(6)]
    assert fetched[-2:] == [[99], [5, 6]]
    assert 1 not in found
