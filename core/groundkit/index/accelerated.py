"""The ``numpy-dense`` and ``numpy-sparse`` paths: the pure-Python operations, vectorised.

Only used when numpy is importable (imported on construction, so this module imports with the
standard library alone). A query's contributions ``qtf * term score`` are concatenated in
canonical term order and summed per chunk by ``bincount``, which adds in input order from
0.0: the same additions in the same order as the pure-Python path, so the scores are
bit-identical (adr/0014). ``numpy-sparse`` first maps the matched keys to ``unique`` slots;
``numpy-dense`` sums into a vector with a slot per chunk.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from groundkit.index.cache import BoundedCache
from groundkit.index.lexical_plan import LexicalPlan
from groundkit.index.paths import LexicalHits, LexicalQuery, ScoringPath
from groundkit.index.postings import PostingList
from groundkit.index.terms import QueryTerm
from groundkit.index.ties import order_tied_arrays

__all__ = ["NumpyScorer"]


class NumpyScorer:
    """Vectorised BM25 over cached per-term numpy arrays."""

    def __init__(
        self,
        norms: array[float],
        postings: Callable[[str], PostingList],
        idf: Callable[[str], float],
        plan: LexicalPlan,
    ) -> None:
        """``idf``: a term's inverse document frequency (``BM25Index.term_idf``)."""
        import numpy

        self._np: Any = numpy
        self._norms: Any = numpy.frombuffer(norms, dtype=numpy.float64)
        self._size = len(norms)
        self._postings = postings
        self._idf = idf
        self._cache: BoundedCache[str, tuple[Any, Any]] = BoundedCache(plan.numpy_cache_postings)

    def paths(self) -> list[ScoringPath]:
        """Its two paths, sharing the term cache."""
        return [_NumpyPath(self, sparse=False), _NumpyPath(self, sparse=True)]

    def term_scores(self, term: str) -> tuple[Any, Any]:
        """(chunk keys, ``idf * (tf / (tf + norm))``) of ``term`` as numpy arrays."""
        found = self._cache.get(term)
        if found is None:
            np = self._np
            postings = self._postings(term)
            keys = np.frombuffer(postings.keys, dtype=np.int64)
            tfs = np.frombuffer(postings.tfs, dtype=np.uint32).astype(np.float64)
            scores = self._idf(term) * (tfs / (tfs + self._norms[keys]))
            found = self._cache.put(term, (keys, scores), len(keys))
        return found

    def top_k(self, query: LexicalQuery, *, sparse: bool) -> tuple[array[int], array[float]]:
        """The exact top k of ``query``, best first, as two arrays: chunk keys and scores.
        Only chunks scoring at least the k-th best are sorted, and only their ties ordered."""
        terms, k, tie_keys, score_threshold, _ = query
        if not terms or k <= 0:
            return array("q"), array("d")
        np = self._np
        matched, values = self._scores(terms, sparse)
        if score_threshold is not None:
            keep = values >= score_threshold
            matched, values = matched[keep], values[keep]
        if values.size > k:
            kth = np.partition(values, values.size - k)[values.size - k]
            keep = values >= kth
            matched, values = matched[keep], values[keep]
        order = np.argsort(-values)  # the order within runs of equal scores is set below
        matched, values = matched[order], values[order]
        order_tied_arrays(np, matched, values, tie_keys)
        keys, scores = array("q"), array("d")
        keys.frombytes(matched[:k].astype(np.int64, copy=False).tobytes())
        scores.frombytes(values[:k].tobytes())
        return keys, scores

    def _scores(self, query: Sequence[QueryTerm], sparse: bool) -> tuple[Any, Any]:
        """(matched chunk keys, their scores)."""
        np = self._np
        lists = [self.term_scores(query_term.term) for query_term in query]
        if len(lists) == 1:  # one term: keys are distinct and 0.0 + x == x
            (keys, scores), qtf = lists[0], query[0].qtf
            return keys, scores if qtf == 1 else qtf * scores
        keys = np.concatenate([keys for keys, _ in lists])
        contributions = np.concatenate(
            [
                scores if query_term.qtf == 1 else query_term.qtf * scores
                for query_term, (_, scores) in zip(query, lists, strict=True)
            ]
        )
        if sparse:
            matched, where = np.unique(keys, return_inverse=True)
            return matched, np.bincount(where, weights=contributions, minlength=matched.size)
        dense = np.bincount(keys, weights=contributions, minlength=self._size)
        matched = np.flatnonzero(dense > 0.0)  # scores are > 0: a bool scan is cheaper (adr/0017)
        return matched, dense[matched]


class _NumpyPath:
    """``numpy-dense`` or ``numpy-sparse``: always answers."""

    def __init__(self, scorer: NumpyScorer, *, sparse: bool) -> None:
        self._scorer = scorer
        self._sparse = sparse
        self.name = "numpy-sparse" if sparse else "numpy-dense"

    def top_k(self, query: LexicalQuery) -> LexicalHits:
        return LexicalHits(*self._scorer.top_k(query, sparse=self._sparse), self.name)
