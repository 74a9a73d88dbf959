"""Lucene BM25 over a snapshot's postings, with exact top-k.

score(q, d) = sum over query terms t of qtf(t) * idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))
with idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), as Lucene's BM25Similarity (8.0 and later,
which dropped the constant (k1 + 1) factor). Each posting's *term score*
``idf * (tf / (tf + norm))`` is computed once per snapshot and cached; a query adds
``qtf * term score`` per chunk, its terms taken in the canonical order (descending document
frequency, then the term). Every scoring path, pure Python or numpy, performs those same
floating-point operations in that same order, so scores are bit-identical
(adr/0014-bm25-speed-term-scores.md). Opening costs one pass over chunk lengths, never a
re-tokenization.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass
from typing import Literal, Protocol

from groundkit.config import BM25Params
from groundkit.errors import ConfigurationError
from groundkit.index.packed import PackedScorer, packing_available
from groundkit.index.postings import PostingsCache
from groundkit.index.pruning import maxscore_candidates
from groundkit.index.terms import QueryTerm, TermScores, canonical_order
from groundkit.index.topk import TieKeys, top_k_columns
from groundkit.store.base import CollectionReader

__all__ = ["ACCELERATORS", "BM25Index", "LexicalHits", "numpy_available"]

Accelerator = Literal["auto", "python", "numpy"]
PRUNING_MAX_K = 100
"""The pure-Python path prunes (MaxScore) for k up to this; deeper cuts rarely skip a term."""
PRUNING_MIN_POSTINGS = 50_000
"""...and only for queries whose terms hold this many postings: below it, exhaustive scoring
is cheaper than pruning's bookkeeping (adr/0010-bm25-speed.md)."""
TERM_SCORES_CACHE_POSTINGS = 1 << 24
"""Term scores held by the pure-Python path before its cache starts over."""
LISTS_MAX_CHUNKS = 250_000
"""Up to this many chunk slots the pure-Python path keeps term scores as lists of ready-made
objects (10-20% faster to loop over); above it, as arrays, whose compact memory beat lists
by 1.5-2x at 1M chunks (adr/0014-bm25-speed-term-scores.md)."""
PACKED_MAX_CHUNKS = 1 << 16
"""Up to this many chunk slots the pure-Python path may add a query's terms as packed ints
(``packed.PackedScorer``); above it a packed term costs more memory than it saves time."""
PACKED_SLOTS_PER_POSTING = 4
PACKED_RESCORES_PER_HIT = 2
"""Packing pays when a query's postings outnumber a quarter of the chunk slots (what packed
addition walks, in C) plus twice k times its terms (what re-scoring looks up, in Python)
(adr/0016-bm25-packed-small-collections.md)."""
ACCELERATORS: tuple[str, ...] = ("auto", "python", "numpy")


def numpy_available() -> bool:
    """Whether the optional numpy accelerator can be used here."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


class _FastScorer(Protocol):
    """What ``accelerated.NumpyScorer`` offers: the exact top k of a query."""

    def top_k(
        self, query: Sequence[QueryTerm], k: int, tie_keys: TieKeys, score_threshold: float | None
    ) -> tuple[Sequence[int], Sequence[float]]: ...


@dataclass(frozen=True, slots=True)
class LexicalHits:
    """The best chunk keys and their scores, best first, and the scoring path that found them.

    Two columns rather than a list of pairs: a deep cut (k = 1000) would otherwise spend more
    on building pairs than on finding them (adr/0015-bm25-columns-and-tie-ranks.md).
    """

    keys: Sequence[int]
    scores: Sequence[float]
    path: str

    def pairs(self) -> list[tuple[int, float]]:
        """(chunk key, score) pairs, best first."""
        return list(zip(self.keys, self.scores, strict=True))


class BM25Index:
    """Scores query terms against one collection snapshot."""

    def __init__(
        self,
        reader: CollectionReader,
        params: BM25Params | None = None,
        *,
        accelerator: Accelerator = "auto",
    ) -> None:
        if accelerator not in ACCELERATORS:
            raise ConfigurationError(
                f"unknown accelerator {accelerator!r}; choose one of {', '.join(ACCELERATORS)}"
            )
        if accelerator == "numpy" and not numpy_available():
            raise ConfigurationError(
                "accelerator 'numpy' was asked for but numpy is not installed; "
                "pip install numpy, or use accelerator 'auto' or 'python'"
            )
        self._reader = reader
        self.params = params or BM25Params()
        self._n = reader.chunk_count
        avgdl = reader.total_length / self._n if self._n else 1.0
        k1, b = self.params.k1, self.params.b
        norms = array("d")
        last = -1
        for key, length in reader.chunk_lengths():
            if key >= len(norms):
                norms.frombytes(bytes(8 * (max(key + 1, 2 * len(norms)) - len(norms))))
            norms[key] = k1 * (1.0 - b + b * length / avgdl) if avgdl else k1
            last = max(last, key)
        del norms[last + 1 :]  # one slot per chunk key, no growth slack
        self._norms = norms
        self._postings = PostingsCache(reader)
        self._term_scores: dict[str, TermScores] = {}
        self._held = 0
        self._as_lists = len(norms) <= LISTS_MAX_CHUNKS
        self._shared_keys: list[int] = []
        use_numpy = accelerator == "numpy" or (accelerator == "auto" and numpy_available())
        self.accelerator: str = "numpy" if use_numpy else "python"
        self._numpy: _FastScorer | None = None
        if use_numpy:
            from groundkit.index.accelerated import NumpyScorer

            self._numpy = NumpyScorer(norms, self._postings.get, self.idf)
        self._packed: PackedScorer | None = None
        if not use_numpy and len(norms) <= PACKED_MAX_CHUNKS and packing_available():
            self._packed = PackedScorer(len(norms), self.term_scores)

    @property
    def chunk_count(self) -> int:
        return self._n

    def idf(self, df: int) -> float:
        return math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))

    def query_terms(self, terms: Sequence[str]) -> list[QueryTerm]:
        """The distinct matching terms of a query in canonical order, with their repeats."""
        found = []
        for term, qtf in Counter(terms).items():
            df = len(self._postings.get(term))
            if df:
                found.append(QueryTerm(term, qtf, df))
        found.sort(key=canonical_order)
        return found

    def term_scores(self, term: str) -> TermScores:
        """Chunk keys holding ``term``, ``idf * (tf / (tf + norm))`` of each, and their maximum.

        On collections up to ``LISTS_MAX_CHUNKS`` they are Python lists: a loop over lists
        reads ready-made objects, where a loop over an ``array`` boxes every item. Above it,
        arrays (the keys are the postings' own), whose compact memory wins at that scale.
        """
        found = self._term_scores.get(term)
        if found is None:
            postings = self._postings.get(term)
            norms = self._norms
            idf = self.idf(len(postings))
            scores = [
                idf * (tf / (tf + norms[key]))
                for key, tf in zip(postings.keys, postings.tfs, strict=True)
            ]
            top = max(scores, default=0.0)
            if self._as_lists:
                if len(self._shared_keys) < len(norms):
                    self._shared_keys = list(range(len(norms)))
                found = (list(map(self._shared_keys.__getitem__, postings.keys)), scores, top)
            else:
                found = (postings.keys, array("d", scores), top)
            if self._held + len(postings) > TERM_SCORES_CACHE_POSTINGS:
                self._term_scores.clear()
                self._held = 0
            self._term_scores[term] = found
            self._held += len(postings)
        return found

    def score(self, terms: Sequence[str]) -> dict[int, float]:
        """BM25 score of every chunk matching at least one of ``terms`` (repeats count).

        The plain reference that the fast paths are tested against.
        """
        scores: dict[int, float] = {}
        for query_term in self.query_terms(terms):
            keys, term_scores, _ = self.term_scores(query_term.term)
            for key, value in zip(keys, term_scores, strict=True):
                scores[key] = scores.get(key, 0.0) + query_term.qtf * value
        return scores

    def _accumulate(self, query: Sequence[QueryTerm]) -> dict[int, float]:
        """Scores of every matching chunk; the first (longest) list is taken at C speed."""
        scores: dict[int, float] = {}
        for query_term in query:
            keys, values, _ = self.term_scores(query_term.term)
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

    def _candidates(self, query: Sequence[QueryTerm], k: int) -> tuple[dict[int, float], str]:
        """Exact scores of chunks that hold the top ``k``, and the pure-Python path that found
        them: packed (small collections, many postings), MaxScore (many postings, small k), or
        every matching chunk."""
        postings = sum(query_term.df for query_term in query)
        if len(query) > 1 and self._packed is not None:
            walked = len(self._norms) // PACKED_SLOTS_PER_POSTING
            if postings >= walked + PACKED_RESCORES_PER_HIT * k * len(query):
                found = self._packed.candidates(query, k)
                if found is not None:
                    return found, "python-packed"
        if len(query) > 1 and k <= PRUNING_MAX_K and postings >= PRUNING_MIN_POSTINGS:
            found = maxscore_candidates(query, k, self.term_scores)
            if found is not None:
                return found, "python-maxscore"
        return self._accumulate(query), "python"

    def top_k(
        self,
        terms: Sequence[str],
        k: int,
        tie_keys: TieKeys,
        *,
        score_threshold: float | None = None,
        allowed: AbstractSet[int] | None = None,
    ) -> LexicalHits:
        """The exact ``k`` best chunks for ``terms``; ties broken by ``tie_keys``.

        ``allowed`` restricts the ranking to those chunk keys (a search filter): the top ``k``
        counts only allowed chunks, scored exactly as without the filter.
        Raises ``KeyError`` for a hit that ``tie_keys`` cannot place (a missing record).
        """
        query = self.query_terms(terms)
        if allowed is not None:
            every = self._accumulate(query)
            if len(allowed) < len(every):
                scores = {key: every[key] for key in allowed if key in every}
            else:
                scores = {key: score for key, score in every.items() if key in allowed}
            return LexicalHits(
                *top_k_columns(scores, k, tie_keys, score_threshold), "python-filtered"
            )
        if self._numpy is not None:
            return LexicalHits(*self._numpy.top_k(query, k, tie_keys, score_threshold), "numpy")
        scores, path = self._candidates(query, k)
        return LexicalHits(*top_k_columns(scores, k, tie_keys, score_threshold), path)
