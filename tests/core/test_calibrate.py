"""Choosing a dense similarity floor from on-topic and off-topic best similarities (adr/0024)."""

from __future__ import annotations

import pytest

from groundkit.embedding import HashEmbedder
from groundkit.errors import ConfigurationError
from groundkit.evaluation.floor_calibration import Calibration, choose_floor


def test_a_separable_pair_gets_a_floor_in_the_middle_of_the_gap() -> None:
    floor = choose_floor([0.6, 0.7, 0.8], [0.1, 0.2, 0.3])
    assert floor == 0.45
    rates = Calibration(floor, (0.6, 0.7, 0.8), (0.1, 0.2, 0.3), HashEmbedder().identity).rates()
    assert rates == (0.0, 0.0)


def test_overlap_minimises_the_sum_of_both_error_rates() -> None:
    on, off = [0.30, 0.55, 0.60, 0.70], [0.10, 0.20, 0.50]
    floor = choose_floor(on, off)
    calibration = Calibration(floor, tuple(on), tuple(off), HashEmbedder().identity)
    abstain, answer = calibration.rates()
    assert abstain + answer == pytest.approx(0.25)  # one on-topic query abstains
    for other in (0.0, 0.25, 0.4, 0.52, 0.65, 1.0):
        assert sum(calibration.rates(other)) >= abstain + answer
    assert calibration.to_dict()["on_topic"]["queries"] == 4
    assert calibration.record().measured["false_abstention"] == 0.25  # type: ignore[index]


def test_no_queries_is_refused() -> None:
    with pytest.raises(ConfigurationError, match="at least one"):
        choose_floor([], [0.1])
