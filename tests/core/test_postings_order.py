"""The pending postings' two orderings (pure Python, numpy) give the same rows and changes."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from groundkit.index.bm25 import numpy_available
from groundkit.store.sqlite.postings_order import (
    POSTINGS_PER_INSERT,
    order_postings,
    term_changes,
)
from groundkit.store.sqlite.schema import CHECKSUM_MODULUS, postings_checksum

postings = st.lists(
    st.tuples(
        st.integers(1, 40),  # term id
        st.integers(0, 3),  # step to the next chunk key
        st.integers(1, 2**31),  # tf
    ),
    max_size=2 * POSTINGS_PER_INSERT + 50,
)


def _columns(
    rows: list[tuple[int, int, int]], first_key: int
) -> tuple[list[int], list[int], list[int]]:
    key = first_key
    term_ids: list[int] = []
    keys: list[int] = []
    tfs: list[int] = []
    for term_id, step, tf in rows:
        key += step  # keys never decrease, as in a transaction
        term_ids.append(term_id)
        keys.append(key)
        tfs.append(tf)
    return term_ids, keys, tfs


@settings(max_examples=150, deadline=None)
@given(rows=postings, first_key=st.sampled_from([1, 2**31 - 5, 2**32 + 7, 2**62]))
def test_the_python_ordering_is_sorted_and_sums_each_terms_checksum(
    rows: list[tuple[int, int, int]], first_key: int
) -> None:
    columns = _columns(rows, first_key)
    ordered = order_postings(*columns, use_numpy=False)
    flat = [value for statement in ordered.full for value in statement]
    flat += [value for row in ordered.rest for value in row]
    triples = [tuple(flat[i : i + 3]) for i in range(0, len(flat), 3)]
    assert triples == sorted(zip(*columns, strict=True), key=lambda p: (p[0], p[1]))
    assert all(len(statement) == 3 * POSTINGS_PER_INSERT for statement in ordered.full)
    by_term: dict[int, list[tuple[int, int]]] = {}
    for term_id, key, tf in triples:
        by_term.setdefault(term_id, []).append((key, tf))
    assert ordered.changes == [
        (len(pairs), postings_checksum(pairs) % CHECKSUM_MODULUS, term_id)
        for term_id, pairs in by_term.items()
    ]
    assert ordered.changes == term_changes(triples)


@pytest.mark.skipif(not numpy_available(), reason="numpy is not installed here")
@settings(max_examples=150, deadline=None)
@given(rows=postings, first_key=st.sampled_from([1, 2**31 - 5, 2**32 + 7, 2**62]))
def test_numpy_orders_exactly_as_python_does(
    rows: list[tuple[int, int, int]], first_key: int
) -> None:
    """Keys past 2**32 and tfs near 2**31 included: the uint64 checksum parts do not wrap."""
    columns = _columns(rows, first_key)
    python = order_postings(*columns, use_numpy=False)
    numpy = order_postings(*columns, use_numpy=True)
    statements = list(numpy.full)  # made as they are inserted: consumed once
    assert [list(s) for s in statements] == [list(s) for s in python.full]
    assert [list(r) for r in numpy.rest] == [list(r) for r in python.rest]
    assert numpy.changes == python.changes
    assert all(type(v) is int for s in statements for v in s)  # bound as SQLite integers


@pytest.mark.skipif(not numpy_available(), reason="numpy is not installed here")
def test_numpy_boxes_many_statements_a_slice_at_a_time_and_misses_none() -> None:
    """Past ``_STATEMENTS_BOXED`` statements the numpy rows are boxed a slice at a time, from
    arrays as the writer keeps them: every statement comes, in order, as Python does it."""
    from array import array

    from groundkit.store.sqlite.postings_order import _STATEMENTS_BOXED

    size = POSTINGS_PER_INSERT * (2 * _STATEMENTS_BOXED + 1) + 7
    rows = [(n * 7919 % 997 + 1, n // 3, n % 5 + 1) for n in range(size)]
    columns = [array("q", column) for column in _columns(rows, 2**40)]
    python = order_postings(*columns, use_numpy=False)
    numpy = order_postings(*columns, use_numpy=True)
    statements = [list(s) for s in numpy.full]
    assert len(statements) == 2 * _STATEMENTS_BOXED + 1
    assert statements == [list(s) for s in python.full]
    assert [list(r) for r in numpy.rest] == [list(r) for r in python.rest]
    assert numpy.changes == python.changes


@pytest.mark.parametrize("use_numpy", [False, True])
def test_columns_of_different_lengths_are_refused_by_both_variants(use_numpy: bool) -> None:
    """numpy would index the longer column quietly: the lengths are checked first."""
    if use_numpy and not numpy_available():
        pytest.skip("numpy is not installed here")
    with pytest.raises(ValueError, match="different lengths"):
        order_postings([1, 2], [5, 6, 7], [1, 1], use_numpy=use_numpy)
