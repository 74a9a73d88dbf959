"""Lucene BM25 over a read view's postings, with exact top-k: the lexical engine's one door.

score(q, d) = sum over query terms t of qtf(t) * idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))
with idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), as Lucene's BM25Similarity (8.0 and later).
Each posting's *term score* ``idf * (tf / (tf + norm))`` is computed once per read view; a query
adds ``qtf * term score`` per chunk in the canonical term order, on every path, so every path's
scores are bit-identical (adr/0014). ``top_k`` asks the plan which paths to try
(``plan.LexicalPlan.paths``) and reports the one that answered in ``LexicalHits.path``.
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Sequence
from collections.abc import Set as AbstractSet
from importlib.util import find_spec
from typing import Literal

from groundkit.config import BM25Params
from groundkit.deadlines import check_deadline
from groundkit.errors import ConfigurationError
from groundkit.index.cache import BoundedCache
from groundkit.index.lexical_plan import DEFAULT_PLAN, LexicalPlan
from groundkit.index.packed import PackedScorer, packing_available
from groundkit.index.paths import (
    ExhaustivePath,
    FilteredPath,
    LexicalHits,
    LexicalQuery,
    ScoringPath,
)
from groundkit.index.postings import BLEND, PostingsCache, blend_members
from groundkit.index.pruning import MaxScorePath
from groundkit.index.stats import CollectionStats
from groundkit.index.terms import QueryTerm, TermScores, canonical_order
from groundkit.index.ties import TieKeys
from groundkit.store.protocols import CollectionReader

__all__ = ["ACCELERATORS", "BM25Index", "LexicalHits", "bm25_idf", "numpy_available"]

Accelerator = Literal["auto", "python", "numpy"]
ACCELERATORS: tuple[str, ...] = ("auto", "python", "numpy")


def numpy_available() -> bool:
    """Whether the optional numpy accelerator can be used here: found, not imported (numpy
    takes 30-110 ms to import; the paths that use it import it)."""
    return find_spec("numpy") is not None


def bm25_idf(chunks: int, df: int) -> float:
    """Lucene's idf of a term held by ``df`` of ``chunks`` chunks."""
    return math.log(1.0 + (chunks - df + 0.5) / (df + 0.5))


class BM25Index:
    """Scores query terms against one collection read view."""

    def __init__(
        self,
        reader: CollectionReader,
        params: BM25Params | None = None,
        *,
        accelerator: Accelerator = "auto",
        plan: LexicalPlan = DEFAULT_PLAN,
        stats: CollectionStats | None = None,
    ) -> None:
        """``stats``: score as part of a larger collection (a shard) with its statistics
        instead of this read view's own (``groundkit.index.stats``)."""
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
        self._stats = stats
        self._n = reader.chunk_count if stats is None else stats.chunk_count
        self._stored_idf = reader.stored_idf() if stats is None else None
        total_length = reader.total_length if stats is None else stats.total_length
        avgdl = total_length / self._n if self._n else 1.0
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
        self.plan = plan
        self._postings = PostingsCache(reader, plan)
        self._term_scores: BoundedCache[str, TermScores] = BoundedCache(
            plan.term_scores_cache_postings
        )
        self._as_lists = plan.term_scores_as_lists(len(norms))
        self._shared_keys: list[int] = []
        use_numpy = accelerator == "numpy" or (
            accelerator == "auto" and len(norms) >= plan.numpy_min_chunks and numpy_available()
        )
        self.accelerator: str = "numpy" if use_numpy else "python"
        self._auto = accelerator == "auto"
        paths: list[ScoringPath] = [
            ExhaustivePath(self.term_scores, plan),
            FilteredPath(self.term_scores, plan),
            MaxScorePath(self.term_scores, plan),
        ]
        if use_numpy:
            paths += self._numpy_paths()
        elif plan.packs(len(norms)) and packing_available():
            paths.append(PackedScorer(len(norms), self.term_scores, plan))
        self._paths = {path.name: path for path in paths}

    def _numpy_paths(self) -> list[ScoringPath]:
        from groundkit.index.accelerated import NumpyScorer

        return NumpyScorer(self._norms, self._postings.get, self.term_idf, self.plan).paths()

    def accelerate(self) -> str:
        """With accelerator ``auto``, use numpy from now on where it is installed, whatever
        the collection's size: a long-lived process (a server) makes enough queries to repay
        importing it, which ``auto`` skips under ``numpy_min_chunks`` for one-shot processes
        (adr/0047). Every path gives the same results. Returns the accelerator in use."""
        if self._auto and self.accelerator != "numpy" and numpy_available():
            self._paths.update((path.name, path) for path in self._numpy_paths())
            self.accelerator = "numpy"
        return self.accelerator

    @property
    def chunk_count(self) -> int:
        return self._n

    def idf(self, df: int) -> float:
        if self._stored_idf is not None:
            stored = self._stored_idf.get(df)
            if stored is not None:
                return stored
        return bm25_idf(self._n, df)

    def local_df(self, term: str) -> int:
        """The number of this read view's chunks holding ``term``."""
        return len(self._postings.get(term))

    def keys(self, term: str) -> Sequence[int]:
        """The keys of this read view's chunks holding ``term`` (a real term, not a blend),
        ascending."""
        return self._postings.get(term).keys

    def df(self, term: str) -> int:
        """The document frequency of ``term``: this read view's, or the collection's (stats);
        a blended term's is its most frequent member's (Lucene's SynonymQuery)."""
        blended = blend_members(term)
        if blended is not None:
            return max(self.df(member) for member in blended[1])
        return self.local_df(term) if self._stats is None else self._stats.df(term)

    def term_idf(self, term: str) -> float:
        blended = blend_members(term)
        idf = self.idf(self.df(term))
        return idf if blended is None else blended[0] * idf

    @staticmethod
    def blend(members: Sequence[str], weight: float) -> str:
        """A query term standing for ``members`` as one term (each chunk's frequencies summed,
        the largest document frequency) whose scores are multiplied by ``weight``: how prefix
        and typo expansions are scored (adr/0046). Every scoring path ranks it alike."""
        if not members or not 0.0 < weight <= 1.0:
            raise ConfigurationError("a blend needs members and a weight in (0, 1]")
        return BLEND + BLEND.join([repr(float(weight)), *sorted(set(members))])

    def query_terms(self, terms: Sequence[str]) -> list[QueryTerm]:
        """The distinct matching terms of a query in canonical order, with their repeats."""
        return self._matching(terms)[0]

    def _matching(self, terms: Sequence[str]) -> tuple[list[QueryTerm], int]:
        """``query_terms``, and how many postings they hold together."""
        found = []
        postings = 0
        for term, qtf in Counter(terms).items():
            check_deadline()
            held = len(self._postings.get(term))
            if held:
                found.append(QueryTerm(term, qtf, held if self._stats is None else self.df(term)))
                postings += held
        found.sort(key=canonical_order)
        return found, postings

    def term_scores(self, term: str) -> TermScores:
        """Chunk keys holding ``term``, ``idf * (tf / (tf + norm))`` of each, and their maximum.

        Python lists up to the plan's ``lists_max_chunks`` (a loop over an ``array`` boxes
        every item), arrays above it (compact memory).
        """
        found = self._term_scores.get(term)
        if found is None:
            postings = self._postings.get(term)
            norms = self._norms
            idf = self.term_idf(term)
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
            self._term_scores.put(term, found, len(postings))
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
        matching, postings = self._matching(terms)
        query = LexicalQuery(matching, k, tie_keys, score_threshold, allowed)
        slots = len(self._norms)
        paths = self._paths
        for name in self.plan.paths(len(matching), postings, k, slots, allowed is not None, paths):
            hits = paths[name].top_k(query)
            if hits is not None:
                return hits
        raise AssertionError("the plan's last path always answers")  # pragma: no cover
