"""What carries a search's steps to its shards: a ``Transport``, one method (httpx's shape).

A ``Searcher`` builds each step (``retrieval/steps.py``) and hands the transport (shard, step)
pairs; the transport returns each one's answer, in order. ``LocalTransport`` runs them on the
``CollectionScorer``s of this process (one collection: one scorer; a sharded one: one per
shard); ``groundkit_ray``'s sends them to Ray Serve replicas, all before awaiting any. The pure
steps around them: every shard answered (``all_answered``), hybrid fusion of merged lists
(``fuse_hits``), and the join of the kept hits in their own shards (``join_hits``). adr/0063.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from groundkit.contracts import SearchResult
from groundkit.errors import ShardUnavailableError
from groundkit.retrieval.collection_scorer import CollectionScorer
from groundkit.retrieval.fusion import reciprocal_rank_fusion
from groundkit.retrieval.merge import ShardHit
from groundkit.retrieval.request import HybridOptions
from groundkit.retrieval.steps import Results, Step
from groundkit.store.protocols import TieKey

__all__ = [
    "LocalTransport",
    "Transport",
    "all_answered",
    "fuse_hits",
    "join_hits",
    "store_names",
]

T = TypeVar("T")


class Transport(Protocol):
    """Carries steps to the shards of one collection (shard numbers in manifest order; one
    collection is shard 0) and their answers back."""

    def send(self, calls: Sequence[tuple[int, Step[T]]]) -> list[T]:
        """Each (shard, step)'s answer, in the order of ``calls``: every step sent before any
        answer is awaited; an error of any shard is raised, never a shorter list."""
        ...

    def close(self) -> None:
        """Release what the transport holds (a no-op where the shards live elsewhere)."""
        ...


class LocalTransport:
    """The scorers of this process, each step run in turn."""

    def __init__(self, scorers: Sequence[CollectionScorer]) -> None:
        self.scorers = tuple(scorers)
        self._closed = False

    def send(self, calls: Sequence[tuple[int, Step[T]]]) -> list[T]:
        scorers = self.scorers
        return [step.run(scorers[shard]) for shard, step in calls]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            for scorer in self.scorers:
                scorer.close()


def all_answered(answers: list[T], asked: int) -> list[T]:
    """``answers``, refused unless each of the ``asked`` shards gave one (never a shorter
    list)."""
    if len(answers) != asked:
        raise ShardUnavailableError(
            f"{len(answers)} of {asked} shards answered; refusing a partial answer"
        )
    return answers


def fuse_hits(
    lexical: list[ShardHit], dense: list[ShardHit], options: HybridOptions
) -> list[tuple[ShardHit, float]]:
    ties: dict[tuple[int, int], TieKey] = {(h.shard, h.key): h.tie for h in lexical + dense}
    hits = {(h.shard, h.key): h for h in lexical + dense}
    fused = reciprocal_rank_fusion(
        [
            [((h.shard, h.key), h.score) for h in lexical],
            [((h.shard, h.key), h.score) for h in dense],
        ],
        tie_keys=lambda items: ties,
        rrf_k=options.rrf_k,
        weights=options.weights,
    )
    return [(hits[item], score) for item, score in fused]


def join_hits(
    transport: Transport,
    size: int,
    hits: Sequence[ShardHit],
    scores: Sequence[float] | None = None,
) -> list[SearchResult]:
    """Each kept hit's record and citation, fetched from its own shard (of ``size``), in the
    order of ``hits``, with ``scores`` (fused ones) or each hit's own."""
    by_shard: dict[int, list[tuple[int, float, int]]] = {}
    if size == 1 and scores is None:  # one shard: its rows in order, no grouping
        rows = [(hit.key, hit.score, rank) for rank, hit in enumerate(hits, start=1)]
        by_shard = {0: rows} if rows else {}
    else:
        given = [hit.score for hit in hits] if scores is None else scores
        for rank, (hit, score) in enumerate(zip(hits, given, strict=True), start=1):
            by_shard.setdefault(hit.shard, []).append((hit.key, score, rank))
    calls = [(shard, Results(rows)) for shard, rows in sorted(by_shard.items())]
    out: list[SearchResult] = []
    for found in all_answered(transport.send(calls), len(calls)):
        out.extend(found)
    if len(out) != len(hits):
        raise ShardUnavailableError(
            f"{len(out)} of {len(hits)} results came back from the shards; refusing"
        )
    if len(calls) > 1:  # one shard's come back in the order asked
        out.sort(key=lambda result: result.metadata["rank"])
    return out


def store_names(answers: Sequence[tuple[list[ShardHit], str | None]]) -> str | None:
    """The vector store the shards searched (one name, as one collection's trace gives;
    comma-joined if shards were opened with different ones)."""
    names = sorted({store for _, store in answers if store is not None})
    return ",".join(names) if names else None
