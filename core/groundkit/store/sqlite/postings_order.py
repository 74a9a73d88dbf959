"""A transaction's pending postings in key order, ready to insert, with each term's changes.

Two variants give the same result: pure Python (a sort of tuples and one pass over them), and
numpy when it is importable (a stable argsort, per-term sums) in about a third of the time
(adr/0037-ingest-speed-second-pass.md). A test holds them equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache
from itertools import chain
from operator import itemgetter
from typing import Any, NamedTuple

from groundkit.store.sqlite.schema import CHECKSUM_MODULUS, KEY_FACTOR, TERM_PRIME

__all__ = ["POSTINGS_PER_INSERT", "OrderedPostings", "order_postings", "term_changes"]

POSTINGS_PER_INSERT = 300
"""Rows per multi-row ``INSERT`` (under a third of the oldest SQLite's 999 parameters)."""


_STATEMENTS_BOXED = 64
"""Statements' parameters turned into Python ints at a time by the numpy variant."""


class OrderedPostings(NamedTuple):
    """Postings sorted by (term id, chunk key), cut for inserting, and what they change."""

    full: Iterable[Sequence[int]]
    """Parameters of each multi-row ``INSERT``: ``POSTINGS_PER_INSERT`` rows, flattened (with
    numpy, made a few at a time as they are inserted: boxed, all of a commit group's postings
    would take about 100 bytes each)."""
    rest: list[Sequence[int]]
    """The rows left over, one ``(term_id, chunk_key, tf)`` each."""
    changes: list[tuple[int, int, int]]
    """Per term, in term order: (postings, their checksum part, term id)."""


def order_postings(
    term_ids: Sequence[int],
    keys: Sequence[int],
    tfs: Sequence[int],
    *,
    use_numpy: bool | None = None,
) -> OrderedPostings:
    """The postings ``(term_ids[i], keys[i], tfs[i])``, whose keys never decrease, ordered.

    A stable sort on the term id alone puts them in key order. ``use_numpy``: None picks
    numpy when it is importable."""
    if not len(term_ids) == len(keys) == len(tfs):  # the numpy variant would not notice
        raise ValueError(
            f"postings columns of different lengths: {len(term_ids)}, {len(keys)}, {len(tfs)}"
        )
    numpy = _numpy() if use_numpy is not False else None
    if use_numpy and numpy is None:
        raise ImportError("numpy is not installed")
    if numpy is not None and len(term_ids):
        return _order_numpy(numpy, term_ids, keys, tfs)
    postings = sorted(zip(term_ids, keys, tfs, strict=True), key=itemgetter(0))
    n = POSTINGS_PER_INSERT
    whole = len(postings) - len(postings) % n
    full: list[Sequence[int]] = [
        tuple(chain.from_iterable(postings[i : i + n])) for i in range(0, whole, n)
    ]
    rest: list[Sequence[int]] = list(postings[whole:])
    return OrderedPostings(full, rest, term_changes(postings))


def term_changes(postings: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Per term of ``postings`` (sorted by term): (count, checksum part, term_id)."""
    changes: list[tuple[int, int, int]] = []
    current, count, total = -1, 0, 0
    factor, prime = KEY_FACTOR, TERM_PRIME
    for tid, key, tf in postings:
        if tid != current:
            if count:
                changes.append((count, total % CHECKSUM_MODULUS, current))
            current, count, total = tid, 0, 0
        count += 1
        total += (key * factor + tf) % prime  # posting_term(key, tf), inlined
    if count:
        changes.append((count, total % CHECKSUM_MODULUS, current))
    return changes


def _order_numpy(
    np: Any, term_ids: Sequence[int], keys: Sequence[int], tfs: Sequence[int]
) -> OrderedPostings:
    """``order_postings`` vectorised. Each posting's checksum part is computed in uint64:
    ``((key mod P) * KEY_FACTOR + tf) mod P`` equals ``(key * KEY_FACTOR + tf) mod P`` and
    stays below 2**64 (P and KEY_FACTOR are below 2**32); a term's parts are summed below 2**64
    unless it has four billion postings in one transaction."""
    tids = np.asarray(term_ids, dtype=np.int64)  # no copy of an array("q")
    order = np.argsort(tids, kind="stable")
    tids = tids[order]
    chunk_keys = np.asarray(keys, dtype=np.int64)[order]
    freqs = np.asarray(tfs, dtype=np.int64)[order]
    prime = np.uint64(TERM_PRIME)
    parts = (chunk_keys.astype(np.uint64) % prime * np.uint64(KEY_FACTOR)) + freqs.astype(np.uint64)
    parts %= prime
    starts = np.flatnonzero(np.concatenate(([True], tids[1:] != tids[:-1])))
    sums = np.add.reduceat(parts, starts) % np.uint64(CHECKSUM_MODULUS)
    counts = np.diff(np.append(starts, len(tids)))
    rows = np.stack((tids, chunk_keys, freqs), axis=1)
    n = POSTINGS_PER_INSERT
    whole = len(rows) - len(rows) % n
    statements = rows[:whole].reshape(-1, 3 * n)
    return OrderedPostings(
        chain.from_iterable(
            statements[i : i + _STATEMENTS_BOXED].tolist()
            for i in range(0, len(statements), _STATEMENTS_BOXED)
        ),
        rows[whole:].tolist(),
        list(zip(counts.tolist(), sums.tolist(), tids[starts].tolist(), strict=True)),
    )


@cache
def _numpy() -> Any:
    """The numpy module, or None where it is not installed (looked for once)."""
    try:
        import numpy
    except ImportError:
        return None
    return numpy
