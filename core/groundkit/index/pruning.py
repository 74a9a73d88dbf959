"""The ``python-maxscore`` path: MaxScore dynamic pruning, exact top k, fewer postings read.

Terms go in order of their largest possible contribution; once the k-th best partial score
exceeds what the remaining terms could add together, those terms are only looked up for the
chunks still in the running. Survivors are re-scored in the canonical order, so their scores
are bit-identical to exhaustive scoring (the argument: adr/0010-bm25-speed.md).
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Sequence

from groundkit.index.paths import LexicalHits, LexicalQuery, TermScoresPath, hits_of
from groundkit.index.terms import QueryTerm, TermScoresOf

__all__ = ["MaxScorePath", "maxscore_candidates"]


class MaxScorePath(TermScoresPath):
    """``python-maxscore``: declines a query where no term could be skipped."""

    name = "python-maxscore"

    def top_k(self, query: LexicalQuery) -> LexicalHits | None:
        found = maxscore_candidates(
            query.terms, query.k, self._term_scores, self._plan.maxscore_margin
        )
        return None if found is None else hits_of(found, query, self.name, self._plan)


def _scores_for(
    keys: Sequence[int], scores: Sequence[float], wanted: Sequence[int]
) -> list[tuple[int, float]]:
    """(key, term score) of each of ``wanted`` that holds the term, in ``wanted``'s order.

    Binary search when few keys are wanted; otherwise one pass over the postings (cheaper
    once ``len(wanted) * log2(df)`` outgrows ``df``).
    """
    if len(wanted) * max(len(keys).bit_length(), 1) < len(keys):
        found = []
        for key in wanted:
            at = bisect_left(keys, key)
            if at < len(keys) and keys[at] == key:
                found.append((key, scores[at]))
        return found
    members = set(wanted)
    by_key = {k: v for k, v in zip(keys, scores, strict=True) if k in members}
    return [(key, by_key[key]) for key in wanted if key in by_key]


def maxscore_candidates(
    query: Sequence[QueryTerm], k: int, term_scores: TermScoresOf, margin: float
) -> dict[int, float] | None:
    """Canonical scores of a set of chunks that surely holds the exact top ``k`` (ties
    included), or None when no term can be skipped. A chunk is dropped only when it misses
    a bound by more than the relative ``margin``."""
    bounded = sorted(
        ((t.qtf * term_scores(t.term)[2], t) for t in query), key=lambda pair: -pair[0]
    )
    remaining = [0.0] * (len(bounded) + 1)
    for i in range(len(bounded) - 1, -1, -1):
        remaining[i] = remaining[i + 1] + bounded[i][0]
    partial: dict[int, float] = {}
    split = len(bounded)
    for i, (_, query_term) in enumerate(bounded):
        if len(partial) >= k:
            threshold = heapq.nlargest(k, partial.values())[-1]
            if remaining[i] < threshold * (1 - margin):
                split = i
                break
        keys, values, _ = term_scores(query_term.term)
        qtf = query_term.qtf
        get = partial.get
        for key, value in zip(keys, values, strict=True):
            partial[key] = get(key, 0.0) + qtf * value
    if split == len(bounded):
        return None
    threshold = heapq.nlargest(k, partial.values())[-1] * (1 - margin)
    alive = [key for key, score in partial.items() if score + remaining[split] >= threshold]
    for i in range(split, len(bounded)):
        query_term = bounded[i][1]
        keys, values, _ = term_scores(query_term.term)
        for key, value in _scores_for(keys, values, alive):
            partial[key] += query_term.qtf * value
        bound = threshold - remaining[i + 1]
        alive = [key for key in alive if partial[key] >= bound]
    return _canonical(alive, query, term_scores)


def _canonical(
    keys: Sequence[int], query: Sequence[QueryTerm], term_scores: TermScoresOf
) -> dict[int, float]:
    """Scores of ``keys`` summed in the canonical term order, as exhaustive scoring does."""
    scores: dict[int, float] = {}
    get = scores.get
    for query_term in query:
        term_keys, values, _ = term_scores(query_term.term)
        for key, value in _scores_for(term_keys, values, keys):
            scores[key] = get(key, 0.0) + query_term.qtf * value
    return scores
