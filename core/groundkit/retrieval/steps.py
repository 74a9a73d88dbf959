"""The calls a ``Searcher`` sends its shards: one small value per step, run by a shard's scorer.

Each step is plain data (it pickles, so it crosses a process boundary as it is) with one
``run(scorer)`` that asks a ``CollectionScorer`` for its answer; a transport
(``retrieval/transport.py``) only carries steps to shards and answers back, the way httpx's
transport carries a request (adr/0063). The statistics (tantivy's statistics provider) are one
step among them: ``Statistics``, whose answers the ``Searcher`` reduces before ``Lexical``.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

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


@dataclass(frozen=True, slots=True)
class DefaultMode:
    """The mode of a search that names none (``CollectionScorer.default_mode``)."""

    def run(self, scorer: CollectionScorer) -> SearchMode:
        return scorer.default_mode


@dataclass(frozen=True, slots=True)
class Floor:
    """The similarity floor of a dense or hybrid search, and its source (adr/0024)."""

    mode: str
    given: float | None

    def run(self, scorer: CollectionScorer) -> tuple[float, str]:
        return scorer.floor(self.mode, self.given)


@dataclass(frozen=True, slots=True)
class LexicalShare:
    """Hybrid's lexical evidence bar, and its source (adr/0049)."""

    given: float | None

    def run(self, scorer: CollectionScorer) -> tuple[float, str]:
        return scorer.lexical_share(self.given)


@dataclass(frozen=True, slots=True)
class LexicalBar:
    """bm25's lexical evidence bar (None: no abstention), and its source (adr/0060)."""

    def run(self, scorer: CollectionScorer) -> tuple[float | None, str]:
        return scorer.lexical_bar()


@dataclass(frozen=True, slots=True)
class Admitted:
    """How many chunks ``where`` admits."""

    where: SearchFilter

    def run(self, scorer: CollectionScorer) -> int:
        return scorer.admitted(self.where)


@dataclass(frozen=True, slots=True)
class Statistics:
    """The map: chunk count, total length and the document frequencies of ``terms``."""

    terms: Sequence[str]

    def run(self, scorer: CollectionScorer) -> ShardStatistics:
        return scorer.statistics(self.terms)


@dataclass(frozen=True, slots=True)
class Lexical:
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


@dataclass(frozen=True, slots=True)
class Dense:
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


@dataclass(frozen=True, slots=True)
class Results:
    """The join: results with citations for the kept hits of this shard."""

    ranked: Ranked

    def run(self, scorer: CollectionScorer) -> list[SearchResult]:
        return scorer.results(self.ranked)


@dataclass(frozen=True, slots=True)
class DocumentOf:
    """The record of document ``document_id`` (of ``source``), held by this shard."""

    document_id: str
    source: str

    def run(self, scorer: CollectionScorer) -> Document:
        return scorer.document(self.document_id, self.source)


@dataclass(frozen=True, slots=True)
class Verify:
    """``citation`` (of document ``document_id``, held by this shard) re-read from its
    source."""

    citation: Citation
    document_id: str

    def run(self, scorer: CollectionScorer) -> Verification:
        return scorer.verify(self.citation, self.document_id)


@dataclass(frozen=True, slots=True)
class Warm:
    """Load now what a first search would; False where there is no usable dense side."""

    def run(self, scorer: CollectionScorer) -> bool:
        return scorer.warm()
