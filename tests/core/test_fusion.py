"""Reciprocal-rank fusion: exact values and properties."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundkit.retrieval.fusion import reciprocal_rank_fusion


def by_name(ids: Sequence[str]) -> Mapping[str, str]:
    return {i: i for i in ids}


def ranking(ids: Sequence[str], scores: Sequence[float] | None = None) -> list[tuple[str, float]]:
    values = scores if scores is not None else [float(len(ids) - n) for n in range(len(ids))]
    return list(zip(ids, values, strict=True))


IDS = st.lists(st.sampled_from("abcdefghijklmnop"), unique=True, max_size=10)
LEGS = st.lists(IDS, min_size=1, max_size=4)
WEIGHT = st.floats(min_value=0.0, max_value=5.0, allow_nan=False)


def test_scores_are_the_reciprocal_rank_sums() -> None:
    fused = dict(
        reciprocal_rank_fusion(
            [ranking(["a", "b", "c"]), ranking(["c", "a"])], tie_keys=by_name, rrf_k=60
        )
    )
    assert fused["a"] == math.fsum([1 / 61, 1 / 62])
    assert fused["b"] == 1 / 62
    assert fused["c"] == math.fsum([1 / 63, 1 / 61])


def test_weights_scale_each_leg_and_zero_switches_a_leg_off() -> None:
    legs = [ranking(["a", "b"]), ranking(["b", "c"])]
    fused = dict(reciprocal_rank_fusion(legs, tie_keys=by_name, rrf_k=1, weights=[2.0, 0.5]))
    assert fused == {"a": 2 / 2, "b": math.fsum([2 / 3, 0.5 / 2]), "c": 0.5 / 3}
    off = reciprocal_rank_fusion(legs, tie_keys=by_name, rrf_k=1, weights=[1.0, 0.0])
    assert [item for item, _ in off] == ["a", "b"]


def test_equal_fused_scores_break_on_the_tie_key() -> None:
    legs = [ranking(["b", "a"]), ranking(["a", "b"])]
    assert [i for i, _ in reciprocal_rank_fusion(legs, tie_keys=by_name)] == ["a", "b"]
    reverse = {"a": "2", "b": "1"}
    got = reciprocal_rank_fusion(legs, tie_keys=lambda ids: {i: reverse[i] for i in ids})
    assert [i for i, _ in got] == ["b", "a"]


@settings(max_examples=200, deadline=None)
@given(LEGS, st.data())
def test_the_order_of_the_legs_does_not_matter(legs: list[list[str]], data: st.DataObject) -> None:
    weights = [data.draw(WEIGHT) for _ in legs]
    order = data.draw(st.permutations(range(len(legs))))
    first = reciprocal_rank_fusion(
        [ranking(leg) for leg in legs], tie_keys=by_name, weights=weights
    )
    second = reciprocal_rank_fusion(
        [ranking(legs[i]) for i in order], tie_keys=by_name, weights=[weights[i] for i in order]
    )
    assert first == second


@settings(max_examples=200, deadline=None)
@given(LEGS, st.data())
def test_input_scores_are_ignored(legs: list[list[str]], data: st.DataObject) -> None:
    noisy = [
        ranking(
            leg,
            data.draw(st.lists(st.floats(allow_nan=True), min_size=len(leg), max_size=len(leg))),
        )
        for leg in legs
    ]
    assert reciprocal_rank_fusion(noisy, tie_keys=by_name) == reciprocal_rank_fusion(
        [ranking(leg) for leg in legs], tie_keys=by_name
    )


@settings(max_examples=100, deadline=None)
@given(LEGS, st.integers(1, 200))
def test_output_is_best_first_over_the_union(legs: list[list[str]], rrf_k: int) -> None:
    fused = reciprocal_rank_fusion([ranking(leg) for leg in legs], tie_keys=by_name, rrf_k=rrf_k)
    assert {i for i, _ in fused} == {i for leg in legs for i in leg}
    assert [s for _, s in fused] == sorted((s for _, s in fused), reverse=True)


@given(IDS.filter(bool), st.data())
def test_a_duplicate_id_within_one_ranking_raises(ids: list[str], data: st.DataObject) -> None:
    twice = [*ids, data.draw(st.sampled_from(ids))]
    with pytest.raises(ValueError, match="more than once"):
        reciprocal_rank_fusion([ranking(["z"]), ranking(twice)], tie_keys=by_name)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"rrf_k": 0}, "rrf_k"),
        ({"rrf_k": True}, "rrf_k"),
        ({"weights": [1.0]}, "weights for 2 rankings"),
        ({"weights": [1.0, -1.0]}, "finite and >= 0"),
        ({"weights": [1.0, math.nan]}, "finite and >= 0"),
    ],
)
def test_bad_settings_raise(kwargs: dict[str, object], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        reciprocal_rank_fusion([ranking(["a"]), ranking(["b"])], tie_keys=by_name, **kwargs)  # type: ignore[arg-type]
