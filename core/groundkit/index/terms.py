"""A query's matching terms, in the one order every scoring path adds them in."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple

__all__ = ["QueryTerm", "TermScores", "TermScoresOf", "canonical_order"]

TermScores = tuple[Sequence[int], Sequence[float], float]
"""A term's chunk keys, each chunk's term score ``idf * (tf / (tf + norm))``, and their maximum."""
TermScoresOf = Callable[[str], TermScores]
"""Where a scoring path gets a term's ``TermScores`` (``BM25Index.term_scores``)."""


class QueryTerm(NamedTuple):
    """A distinct query term that occurs in the collection: its repeats and document frequency.

    A named tuple rather than a frozen dataclass: one is built per term per query.
    """

    term: str
    qtf: int
    df: int


def canonical_order(query_term: QueryTerm) -> tuple[int, str]:
    """Sort key: longest postings first (the pure-Python path builds on that list at C speed),
    then the term itself, so the order depends on content alone."""
    return (-query_term.df, query_term.term)
