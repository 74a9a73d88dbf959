"""Exact top-k selection and its tie-break, against a plain full sort."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundkit.index.lexical_plan import DEFAULT_PLAN
from groundkit.index.ties import CachedTieKeys, order_ties, tie_order_keys, tied_order
from groundkit.index.topk import select_top_k, top_k_columns
from groundkit.store.protocols import TieKey

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


def ranked_tie_keys() -> CachedTieKeys:
    """Tie keys of chunks 0..400 that rank all of them, as a small read view would."""
    every = tie_keys(range(401)).items
    return CachedTieKeys(tie_keys, every=every, chunk_count=401, rank_after=0)


@settings(max_examples=300, deadline=None)
@given(SCORES, st.integers(1, 60), st.none() | st.sampled_from([1.0, 2.0, 3.0]))
def test_view_wide_ranks_give_the_same_top_k(
    scores: dict[int, float], k: int, floor: float | None
) -> None:
    keys, values = top_k_columns(scores, k, ranked_tie_keys(), floor)
    assert list(zip(keys, values, strict=True)) == reference(scores, k, floor)


@settings(max_examples=200, deadline=None)
@given(SCORES, st.integers(1, 60), st.booleans())
def test_order_ties_orders_every_run_that_starts_within_k(
    scores: dict[int, float], k: int, ranked: bool
) -> None:
    candidates = sorted(scores.items(), key=lambda item: -item[1])  # runs in arbitrary order
    keys, values = [key for key, _ in candidates], [score for _, score in candidates]
    order_ties(keys, values, k, ranked_tie_keys() if ranked else tie_keys)
    assert list(zip(keys, values, strict=True))[:k] == reference(scores, k, None)


def test_a_sampled_floor_that_too_few_reach_falls_back_to_every_candidate() -> None:
    scores = {key: 10.0 if key % 4 == 0 else 1.0 for key in range(40)}  # the sample sees 10s
    keys, values = top_k_columns(scores, 12, tie_keys)
    assert list(zip(keys, values, strict=True)) == reference(scores, 12, None)
    assert values.count(10.0) == 10


def test_tie_keys_are_fetched_only_for_runs_that_reach_the_top_k() -> None:
    asked: list[int] = []

    def recording(keys: Sequence[int]) -> dict[int, TieKey]:
        asked.extend(keys)
        return tie_keys(keys)

    keys, values = [1, 2, 3, 4, 5, 6], [9.0, 8.0, 8.0, 7.0, 6.0, 6.0]
    order_ties(keys, values, 3, recording)
    assert sorted(asked) == [2, 3]
    asked.clear()
    order_ties([1, 2], [3.0, 2.0], 2, recording)
    assert asked == []


def test_a_read_view_is_ranked_once_its_lookups_add_up_to_its_size() -> None:
    passes: list[int] = []

    def every() -> list[tuple[int, TieKey]]:
        passes.append(1)
        return [(key, tie_key(key)) for key in (0, 1, 5)]  # chunk 3 has no record

    small = CachedTieKeys(tie_keys, every=every, chunk_count=4)
    assert small.ranks() is None
    small([0, 1, 5])
    assert small.ranks() is None and passes == []  # 3 of 4 looked up: not yet
    small([0])
    ranks = small.ranks()
    assert ranks is not None and small.ranks() is ranks and passes == [1]
    assert ranks[3] == ranks[2] == ranks[4] == -1  # no record, no chunk
    assert sorted(ranks[key] for key in (0, 1, 5)) == [0, 1, 2]
    assert sorted((0, 1, 5), key=ranks.__getitem__) == sorted((0, 1, 5), key=tie_key)
    assert tie_order_keys([5, 0], small) == [ranks[5], ranks[0]]
    assert tied_order([5, 0], small) == ([1, 0] if ranks[5] > ranks[0] else [0, 1])
    with pytest.raises(KeyError):
        tied_order([0, 3], small)
    with pytest.raises(KeyError):
        tied_order([0, 9], small)  # past the last chunk
    plan = replace(DEFAULT_PLAN, tie_ranks_max_chunks=1)
    large = CachedTieKeys(tie_keys, every=every, chunk_count=2, rank_after=0, plan=plan)
    assert large.ranks() is None and passes == [1]


def test_cached_tie_keys_fetch_each_chunk_once_and_keep_missing_ones_missing() -> None:
    fetched: list[list[int]] = []

    def fetch(keys: Sequence[int]) -> dict[int, TieKey]:
        fetched.append(list(keys))
        return {key: tie_key(key) for key in keys if key != 99}

    cached = CachedTieKeys(fetch, plan=replace(DEFAULT_PLAN, tie_cache_entries=4))
    assert cached([1, 2])[2] == tie_key(2)
    assert cached([2, 1, 3])[3] == tie_key(3)
    assert fetched == [[1, 2], [3]]
    with pytest.raises(KeyError):
        cached([99])[99]
    found = cached([3, 5, 6])  # past the limit: starts over, keeping what was asked for
    assert [found[key] for key in (3, 5, 6)] == [tie_key(3), tie_key(5), tie_key(6)]
    assert fetched[-2:] == [[99], [5, 6]]
    assert 1 not in found
