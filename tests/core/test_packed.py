"""Packed (fixed-point, big-int) addition keeps every chunk that can reach the exact top k."""

from __future__ import annotations

from dataclasses import replace

from groundkit.index.lexical_plan import DEFAULT_PLAN
from groundkit.index.packed import PackedScorer
from groundkit.index.terms import QueryTerm, TermScores

SLOTS = 16
DESIGNED = {
    # chunk 0 is sampled (every 8th field) and each of its scores rounds up: total 40, exact 38.04
    0: [9.51, 9.51, 9.51, 9.51],
    # chunk 5 is not sampled and rounds down: total 37, yet its exact score 38.96 is the best
    5: [9.49, 9.49, 9.49, 10.49],
}


def designed_scores(term: str) -> TermScores:
    at = int(term[1:])
    values = [DESIGNED.get(key, [1.0] * 4)[at] for key in range(SLOTS)]
    return list(range(SLOTS)), values, max(values)


def test_a_chunk_whose_total_rounded_down_is_still_kept() -> None:
    """At whole-unit fixed point the best chunk's total (37) is under the sampled guess (40):
    only the margin of one unit per term, plus two, keeps it."""
    query = [QueryTerm(f"t{n}", 1, SLOTS) for n in range(4)]
    whole_units = replace(DEFAULT_PLAN, packed_fraction_bits=0)
    found = PackedScorer(SLOTS, designed_scores, whole_units).candidates(query, 1)
    assert found is not None
    assert max(found, key=found.__getitem__) == 5
    assert found[5] == ((0.0 + 9.49) + 9.49 + 9.49) + 10.49  # canonical order, from 0.0
    assert found[0] == 9.51 + 9.51 + 9.51 + 9.51


def test_repeated_terms_count_in_the_total_and_the_margin() -> None:
    query = [QueryTerm("t0", 3, SLOTS), QueryTerm("t3", 1, SLOTS)]
    scorer = PackedScorer(SLOTS, designed_scores, DEFAULT_PLAN)
    found = scorer.candidates(query, 2)
    assert found is not None
    exact = {key: 3 * values[0] + values[3] for key, values in DESIGNED.items()}
    assert {key: found[key] for key in exact} == exact


def test_no_packing_for_a_total_that_could_overflow_a_field() -> None:
    query = [QueryTerm("t0", 1 << 20, SLOTS)]
    assert PackedScorer(SLOTS, designed_scores, DEFAULT_PLAN).candidates(query, 1) is None
