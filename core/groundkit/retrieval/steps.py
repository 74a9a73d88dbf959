"""The calls a ``Searcher`` sends its shards: one small value per step, run by a shard's scorer.

Each step is a named tuple (it pickles, so it crosses a process boundary as it is) with one
``run(scorer)`` that asks a ``CollectionScorer`` for its answer; a transport
(``retrieval/transport.py``) only carries steps to shards and answers back, the way httpx's
transport carries a request (adr/0063). The statistics (tantivy's statistics provider) are one
step among them: ``Statistics``, whose answers the ``Searcher`` reduces before ``Lexical``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, NamedTuple, Protocol, TypeVar

from groundkit.contracts import Citation, Document, SearchResult
from groundkit.retrieval.citations import Verification
from groundkit.retrieval.merge import ShardHit
from groundkit.retrieval.request import SearchFilter, SearchMode
from groundkit.retrieval.shard_stats import ShardStatistics

if TYPE_CHECKING:
    from groundkit.retrieval.collection_scorer import CollectionScorer

__all__ = [
    "Admitted",
    "DefaultMode",
    "Dense",
    "DocumentOf",
    "Floor",
    "Lexical",
    "LexicalBar",
    "LexicalShare",
    "Ranked",
    "Results",
    "Statistics",
    "Step",
    "TermIdf",
    "Verify",
    "Warm",
]

T_co = TypeVar("T_co", covariant=True)
Ranked = Sequence[tuple[int, float, int]]
"""(chunk key, score, global rank) triples of one shard."""


class Step(Protocol[T_co]):
    """One call of a search to one shard."""

    def run(self, scorer: CollectionScorer) -> T_co:
        """The shard's answer, from its scorer."""
        ...


class DefaultMode(NamedTuple):
    """The mode of a search that names none (``CollectionScorer.default_mode``)."""

    def run(self, scorer: CollectionScorer) -> SearchMode:
        return scorer.default_mode


class Floor(NamedTuple):
    """The similarity floor of a dense or hybrid search, and its source (adr/0024)."""

    mode: str
    given: float | None

    def run(self, scorer: CollectionScorer) -> tuple[float, str]:
        return scorer.floor(self.mode, self.given)


class LexicalShare(NamedTuple):
    """Hybrid's lexical evidence bar, and its source (adr/0049)."""

    given: float | None

    def run(self, scorer: CollectionScorer) -> tuple[float, str]:
        return scorer.lexical_share(self.given)


class LexicalBar(NamedTuple):
    """bm25's lexical evidence bar (None: no abstention), and its source (adr/0060)."""

    def run(self, scorer: CollectionScorer) -> tuple[float | None, str]:
        return scorer.lexical_bar()


class TermIdf(NamedTuple):
    """Each term's document frequency and idf as one collection scores with it (adr/0069)."""

    terms: Sequence[str]

    def run(self, scorer: CollectionScorer) -> list[tuple[int, float]]:
        return scorer.term_idf(self.terms)


class Admitted(NamedTuple):
    """How many chunks ``where`` admits."""

    where: SearchFilter

    def run(self, scorer: CollectionScorer) -> int:
        return scorer.admitted(self.where)


class Statistics(NamedTuple):
    """The map: chunk count, total length and the document frequencies of ``terms``."""

    terms: Sequence[str]

    def run(self, scorer: CollectionScorer) -> ShardStatistics:
        return scorer.statistics(self.terms)


class Lexical(NamedTuple):
    """The ``k`` best BM25 hits, scored with the collection's document frequencies ``df``, and
    the scoring path that found them; ``ties``: with their tie keys."""

    terms: Sequence[str]
    k: int
    df: Mapping[str, int]
    score_threshold: float | None
    where: SearchFilter | None
    ties: bool

    def run(self, scorer: CollectionScorer) -> tuple[list[ShardHit], str]:
        return scorer.lexical(
            self.terms,
            self.k,
            self.df,
            score_threshold=self.score_threshold,
            where=self.where,
            ties=self.ties,
        )


class Dense(NamedTuple):
    """The ``k`` chunks most similar to ``query``, and the vector store that found them."""

    query: str
    mode: str
    k: int
    min_score: float | None
    where: SearchFilter | None
    ties: bool

    def run(self, scorer: CollectionScorer) -> tuple[list[ShardHit], str | None]:
        return scorer.dense_hits(
            self.query,
            self.mode,
            self.k,
            min_score=self.min_score,
            where=self.where,
            ties=self.ties,
        )


class Results(NamedTuple):
    """The join: results with citations for the kept hits of this shard."""

    ranked: Ranked

    def run(self, scorer: CollectionScorer) -> list[SearchResult]:
        return scorer.results(self.ranked)


class DocumentOf(NamedTuple):
    """The record of document ``document_id`` (of ``source``), held by this shard."""

    document_id: str
    source: str

    def run(self, scorer: CollectionScorer) -> Document:
        return scorer.document(self.document_id, self.source)


class Verify(NamedTuple):
    """``citation`` (of document ``document_id``, held by this shard) re-read from its
    source."""

    citation: Citation
    document_id: str

    def run(self, scorer: CollectionScorer) -> Verification:
        return scorer.verify(self.citation, self.document_id)


class Warm(NamedTuple):
    """Load now what a first search would; False where there is no usable dense side."""

    def run(self, scorer: CollectionScorer) -> bool:
        return scorer.warm()
