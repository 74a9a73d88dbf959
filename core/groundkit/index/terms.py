"""A query's matching terms, in the one order every scoring path adds them in."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["QueryTerm"]


@dataclass(frozen=True, slots=True)
class QueryTerm:
    """A distinct query term that occurs in the collection: its repeats and document frequency."""

    term: str
    qtf: int
    df: int

    def canonical_order(self) -> tuple[int, str]:
        """Sort key: longest postings first (the pure-Python path builds on that list at C
        speed), then the term itself, so the order depends on content alone."""
        return (-self.df, self.term)
