"""The scoring-path protocol, its one result shape, and the exhaustive pure-Python paths.

A path answers a ``LexicalQuery`` with the exact top k as ``LexicalHits`` (bit-identical to
every other path), or with None: "not for this query" (the planner's next path then answers).
The paths: ``python`` and ``python-filtered`` (here), ``python-packed`` (``packed``),
``python-maxscore`` (``pruning``), ``numpy-dense`` and ``numpy-sparse`` (``accelerated``);
``plan.LexicalPlan.paths`` chooses among them.
"""

from __future__ import annotations

from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from groundkit.index.lexical_plan import LexicalPlan
from groundkit.index.terms import QueryTerm, TermScoresOf
from groundkit.index.ties import TieKeys
from groundkit.index.topk import top_k_columns

__all__ = [
    "ExhaustivePath",
    "FilteredPath",
    "LexicalHits",
    "LexicalQuery",
    "ScoringPath",
    "TermScoresPath",
    "accumulate",
    "hits_of",
]


class LexicalQuery(NamedTuple):
    """What a path is asked: the query's matching terms in canonical order, k, how ties break,
    the lowest score wanted, and the chunk keys allowed (None: all). A named tuple: one is
    built per query, and it builds faster than a frozen dataclass."""

    terms: Sequence[QueryTerm]
    k: int
    tie_keys: TieKeys
    score_threshold: float | None = None
    allowed: AbstractSet[int] | None = None


@dataclass(frozen=True, slots=True)
class LexicalHits:
    """The best chunk keys and their scores, best first, and the scoring path that found them.

    Two columns rather than a list of pairs: a deep cut would otherwise spend more on building
    pairs than on finding them (adr/0015).
    """

    keys: Sequence[int]
    scores: Sequence[float]
    path: str

    def pairs(self) -> list[tuple[int, float]]:
        """(chunk key, score) pairs, best first."""
        return list(zip(self.keys, self.scores, strict=True))


class ScoringPath(Protocol):
    """One way to find a query's exact top k."""

    @property
    def name(self) -> str:
        """The path's name, as ``LexicalHits.path`` reports it."""
        ...

    def top_k(self, query: LexicalQuery) -> LexicalHits | None:
        """The exact top k of ``query``, or None where this path cannot decide it."""
        ...


def hits_of(
    scores: dict[int, float], query: LexicalQuery, path: str, plan: LexicalPlan
) -> LexicalHits:
    """The top k of exact candidate ``scores`` (a superset of it, ties included)."""
    keys, values = top_k_columns(scores, query.k, query.tie_keys, query.score_threshold, plan)
    return LexicalHits(keys, values, path)


def accumulate(query: Sequence[QueryTerm], term_scores: TermScoresOf) -> dict[int, float]:
    """Scores of every matching chunk, terms added in canonical order; the first (longest)
    list is taken at C speed."""
    scores: dict[int, float] = {}
    for query_term in query:
        keys, values, _ = term_scores(query_term.term)
        qtf = query_term.qtf
        if qtf != 1:
            values = [qtf * value for value in values]
        if not scores:
            scores = dict(zip(keys, values, strict=True))
            continue
        get = scores.get
        for key, value in zip(keys, values, strict=True):
            scores[key] = get(key, 0.0) + value
    return scores


class TermScoresPath:
    """Base of the pure-Python paths: they read the index's term scores and select by plan."""

    name = ""

    def __init__(self, term_scores: TermScoresOf, plan: LexicalPlan) -> None:
        self._term_scores = term_scores
        self._plan = plan


class ExhaustivePath(TermScoresPath):
    """``python``: every matching chunk scored, then selected. Always answers."""

    name = "python"

    def top_k(self, query: LexicalQuery) -> LexicalHits:
        return hits_of(accumulate(query.terms, self._term_scores), query, self.name, self._plan)


class FilteredPath(TermScoresPath):
    """``python-filtered``: exhaustive scores of the allowed chunks only (a search filter);
    the top k counts allowed chunks alone, each scored exactly as without the filter."""

    name = "python-filtered"

    def top_k(self, query: LexicalQuery) -> LexicalHits:
        every = accumulate(query.terms, self._term_scores)
        allowed = query.allowed
        if allowed is None:
            scores = every
        elif len(allowed) < len(every):
            scores = {key: every[key] for key in allowed if key in every}
        else:
            scores = {key: score for key, score in every.items() if key in allowed}
        return hits_of(scores, query, self.name, self._plan)
