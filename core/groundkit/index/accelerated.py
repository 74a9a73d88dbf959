"""The numpy path of BM25 scoring: the same operations as the pure-Python path, vectorised.

Only used when numpy is importable (it is imported on construction, so this module itself
imports with the standard library alone). Term scores ``idf * (tf / (tf + norm))`` are
computed elementwise with the same float64 operations as the Python path and cached per term.
A query's contributions ``qtf * term score`` are concatenated in canonical term order and
summed per chunk by ``bincount``, which adds in input order starting from 0.0: each chunk sees
the same additions in the same order as the pure-Python path, so the scores are
bit-identical. Only the chunks scoring at least the k-th best are ordered, and equal scores
among them by their content-derived tie keys (adr/0005), fetched only for the tied chunks.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Sequence
from typing import Any

from groundkit.index.postings import PostingList
from groundkit.index.terms import QueryTerm
from groundkit.index.ties import tie_ranks_of
from groundkit.index.topk import TieKeys, tied_order

__all__ = ["NumpyScorer"]

CACHE_POSTINGS = 1 << 26
"""Term scores held (8 bytes a posting, plus the postings they were computed from) before
the cache starts over."""
_SPARSE_RATIO = 4
"""Sum sparsely (``unique`` first) when the query's postings number under a quarter of the
chunk slots; otherwise ``bincount`` straight into a vector with a slot per chunk."""


class NumpyScorer:
    """Vectorised BM25 over cached per-term numpy arrays."""

    def __init__(
        self,
        norms: array[float],
        postings: Callable[[str], PostingList],
        idf: Callable[[int], float],
    ) -> None:
        import numpy

        self._np: Any = numpy
        self._norms: Any = numpy.frombuffer(norms, dtype=numpy.float64)
        self._size = len(norms)
        self._postings = postings
        self._idf = idf
        self._cache: dict[str, tuple[Any, Any]] = {}
        self._held = 0

    def term_scores(self, term: str) -> tuple[Any, Any]:
        """(chunk keys, ``idf * (tf / (tf + norm))``) of ``term`` as numpy arrays."""
        found = self._cache.get(term)
        if found is None:
            np = self._np
            postings = self._postings(term)
            keys = np.frombuffer(postings.keys, dtype=np.int64)
            tfs = np.frombuffer(postings.tfs, dtype=np.uint32).astype(np.float64)
            scores = self._idf(len(keys)) * (tfs / (tfs + self._norms[keys]))
            if self._held + len(keys) > CACHE_POSTINGS:
                self._cache.clear()
                self._held = 0
            found = self._cache[term] = (keys, scores)
            self._held += len(keys)
        return found

    def top_k(
        self,
        query: Sequence[QueryTerm],
        k: int,
        tie_keys: TieKeys,
        score_threshold: float | None,
    ) -> tuple[array[int], array[float]]:
        """The exact top ``k`` of ``query`` (canonical order), best first, as two arrays:
        chunk keys and scores."""
        if not query or k <= 0:
            return array("q"), array("d")
        np = self._np
        matched, values = self._scores(query)
        if score_threshold is not None:
            keep = values >= score_threshold
            matched, values = matched[keep], values[keep]
        if values.size > k:
            kth = np.partition(values, values.size - k)[values.size - k]
            keep = values >= kth
            matched, values = matched[keep], values[keep]
        order = np.argsort(-values)  # the order within runs of equal scores is set below
        matched, values = matched[order], values[order]
        equal = values[1:] == values[:-1]
        if equal.any():  # order the runs of equal scores by tie key, each within its block
            tied = np.zeros(matched.size, dtype=bool)
            tied[1:] = equal
            tied[:-1] |= equal
            places = np.flatnonzero(tied)
            tied_keys = matched[places]
            within = np.lexsort((self._tie_ranks(tied_keys, tie_keys), -values[places]))
            matched[places] = tied_keys[within]
        keys, scores = array("q"), array("d")
        keys.frombytes(matched[:k].astype(np.int64, copy=False).tobytes())
        scores.frombytes(values[:k].tobytes())
        return keys, scores

    def _tie_ranks(self, tied_keys: Any, tie_keys: TieKeys) -> Any:
        """Each tied chunk's place in tie-key order: gathered from the snapshot-wide ranks
        where ``tie_keys`` has them and all of these are ranked; otherwise ``tied_order``
        decides (and raises ``KeyError`` for a key without a tie key)."""
        np = self._np
        ranks = tie_ranks_of(tie_keys)
        if ranks is not None:
            snapshot = np.frombuffer(ranks, dtype=np.int64)  # a view, no copy
            if tied_keys.max() < snapshot.size:
                found = snapshot[tied_keys]
                if found.min() >= 0:
                    return found
        return np.asarray(tied_order(tied_keys.tolist(), tie_keys), dtype=np.int64)

    def _scores(self, query: Sequence[QueryTerm]) -> tuple[Any, Any]:
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
        if keys.size * _SPARSE_RATIO < self._size:
            matched, where = np.unique(keys, return_inverse=True)
            return matched, np.bincount(where, weights=contributions, minlength=matched.size)
        dense = np.bincount(keys, weights=contributions, minlength=self._size)
        matched = np.flatnonzero(dense > 0.0)  # scores are > 0; a bool scan is 4x faster
        return matched, dense[matched]
