"""Lucene BM25 over a snapshot's postings, with exact top-k.

score(q, d) = sum over query terms t of qtf(t) * idf(t) * tf / (tf + k1 * (1 - b + b * |d| / avgdl))
computed as ``weight * impact`` with ``weight = qtf * idf`` and ``impact = tf / (tf + norm)``
with idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)), as Lucene's BM25Similarity (8.0 and later,
which dropped the constant (k1 + 1) factor). Opening costs one pass over chunk lengths, never
a re-tokenization. Scoring runs in pure Python, or through numpy when it is importable; both
perform the same floating-point operations in the same order, so scores are bit-identical
(adr/0010-bm25-speed.md).
"""

from __future__ import annotations

import math
from array import array
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from groundkit.config import BM25Params
from groundkit.errors import ConfigurationError
from groundkit.index.postings import DEFAULT_CACHE_POSTINGS, PostingsCache
from groundkit.index.pruning import maxscore_candidates
from groundkit.index.topk import rank_by_score, select_top_k
from groundkit.store.base import CollectionReader, TieKey

__all__ = ["ACCELERATORS", "BM25Index", "LexicalHits", "numpy_available"]

Accelerator = Literal["auto", "python", "numpy"]
PRUNING_MAX_K = 100
"""The pure-Python path prunes (MaxScore) for k up to this; deeper cuts rarely skip a term."""
PRUNING_MIN_POSTINGS = 50_000
"""...and only for queries whose terms hold this many postings: below it, exhaustive scoring
is cheaper than pruning's bookkeeping (adr/0010-bm25-speed.md)."""
ACCELERATORS: tuple[str, ...] = ("auto", "python", "numpy")


def numpy_available() -> bool:
    """Whether the optional numpy accelerator can be used here."""
    try:
        import numpy  # noqa: F401
    except ImportError:
        return False
    return True


class _Shortlister(Protocol):
    """What ``accelerated.NumpyScorer`` offers: the chunks that can reach the top k."""

    def shortlist(
        self, weights: Sequence[tuple[str, float]], k: int, score_threshold: float | None
    ) -> list[tuple[int, float]]: ...


@dataclass(frozen=True, slots=True)
class LexicalHits:
    """The best (chunk key, score) pairs, best first, and the scoring path that found them."""

    ranked: list[tuple[int, float]]
    path: str


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
        for key, length in reader.chunk_lengths():
            if key >= len(norms):
                norms.frombytes(bytes(8 * (max(key + 1, 2 * len(norms)) - len(norms))))
            norms[key] = k1 * (1.0 - b + b * length / avgdl) if avgdl else k1
        self._norms = norms
        self._postings = PostingsCache(reader)
        self._impact_cache: dict[str, tuple[array[int], array[float]]] = {}
        self._impacts_held = 0
        self._max_impacts: dict[str, float] = {}
        use_numpy = accelerator == "numpy" or (accelerator == "auto" and numpy_available())
        self.accelerator: str = "numpy" if use_numpy else "python"
        self._numpy: _Shortlister | None = None
        if use_numpy:
            from groundkit.index.accelerated import NumpyScorer

            self._numpy = NumpyScorer(len(norms), self.impacts)

    @property
    def chunk_count(self) -> int:
        return self._n

    def idf(self, df: int) -> float:
        return math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))

    def _weights(self, terms: Sequence[str]) -> list[tuple[str, float]]:
        """(term, qtf * idf) for each distinct matching term, in a fixed (sorted) order."""
        counts = Counter(terms)
        out: list[tuple[str, float]] = []
        for term in sorted(counts):  # a fixed summation order keeps floats identical
            df = len(self._postings.get(term))
            if df:
                out.append((term, counts[term] * self.idf(df)))
        return out

    def score(self, terms: Sequence[str]) -> dict[int, float]:
        """BM25 score of every chunk matching at least one of ``terms`` (repeats count)."""
        return self._accumulate(self._weights(terms))

    def impacts(self, term: str) -> tuple[array[int], array[float]]:
        """Chunk keys holding ``term`` and ``tf / (tf + norm)`` of each, computed once.

        A chunk's score is the sum over query terms of ``weight * impact``, added in sorted
        term order by every scoring path, which is what keeps them bit-identical.
        """
        found = self._impact_cache.get(term)
        if found is None:
            postings = self._postings.get(term)
            norms = self._norms
            values = array(
                "d",
                [
                    tf / (tf + norms[key])
                    for key, tf in zip(postings.keys, postings.tfs, strict=True)
                ],
            )
            found = (postings.keys, values)
            if self._impacts_held + len(values) > DEFAULT_CACHE_POSTINGS:
                self._impact_cache.clear()
                self._impacts_held = 0
            self._impact_cache[term] = found
            self._impacts_held += len(values)
        return found

    def _postings_of(self, weights: Sequence[tuple[str, float]]) -> int:
        return sum(len(self._postings.get(term)) for term, _ in weights)

    def max_impact(self, term: str) -> float:
        """The largest impact of ``term`` in any chunk (its MaxScore bound per unit weight)."""
        found = self._max_impacts.get(term)
        if found is None:
            found = self._max_impacts[term] = max(self.impacts(term)[1], default=0.0)
        return found

    def _accumulate(self, weights: Sequence[tuple[str, float]]) -> dict[int, float]:
        scores: dict[int, float] = {}
        for term, weight in weights:
            keys, impacts = self.impacts(term)
            if not scores:
                scores = {key: weight * impact for key, impact in zip(keys, impacts, strict=True)}
                continue
            get = scores.get
            for key, impact in zip(keys, impacts, strict=True):
                scores[key] = get(key, 0.0) + weight * impact
        return scores

    def top_k(
        self,
        terms: Sequence[str],
        k: int,
        tie_keys: Callable[[Sequence[int]], Mapping[int, TieKey]],
        *,
        score_threshold: float | None = None,
    ) -> LexicalHits:
        """The exact ``k`` best chunks for ``terms``; ties broken by ``tie_keys``.

        Raises ``KeyError`` for a hit that ``tie_keys`` cannot place (a missing record).
        """
        weights = self._weights(terms)
        if self._numpy is not None:
            ordered = self._numpy.shortlist(weights, k, score_threshold)
            return LexicalHits(rank_by_score(ordered, k, tie_keys), "numpy")
        scores = None
        if (
            k <= PRUNING_MAX_K
            and len(weights) > 1
            and self._postings_of(weights) >= PRUNING_MIN_POSTINGS
        ):
            scores = maxscore_candidates(weights, k, self.impacts, self.max_impact)
        path = "python" if scores is None else "python-maxscore"
        if scores is None:
            scores = self._accumulate(weights)
        if score_threshold is not None:
            scores = {key: s for key, s in scores.items() if s >= score_threshold}
        return LexicalHits(select_top_k(scores, k, tie_keys), path)
