"""A collection calibrates its own "nothing here" (adr/0060, adr/0066): pseudo on-topic
queries sampled from its chunks (headings, a few of a passage's words), pseudo off-topic ones
from a general multilingual question set shipped with groundkit.

Each mode's bar is the lowest that lets through at most its allowance of the shipped
questions: bm25's lexical share ``OFF_TOPIC_ANSWERED``; hybrid's floor and share (a query
passes on either) ``HYBRID_OFF_TOPIC_ANSWERED`` together, the floor half of it rounded down
(``hybrid_pair``, adr/0084).
The shipped questions are real questions, like the off-topic ones a collection is asked; the
pseudo on-topic queries are not, and how far they are from real ones depends on the
collection and the mode (shorter than questions for bm25, word lists that embed far from
their sentences for dense), so they choose no bar (adr/0066).
bm25's bar is applied only where it *separates* (at most ``MAX_RATE`` of them under it, of at
least ``MIN_ON_TOPIC``).
"""

from __future__ import annotations

import bisect
import hashlib
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from itertools import chain
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundkit.evaluation.floor_calibration import _summary
from groundkit.retrieval import HybridOptions
from groundkit.retrieval.floor import FloorRecord, read_floor, write_floor
from groundkit.retrieval.lexical_bar import LexicalBar, read_lexical_bar, write_lexical_bar
from groundkit.retrieval.searcher import Searcher

if TYPE_CHECKING:
    from groundkit.embedding import Embedder

__all__ = [
    "HYBRID_OFF_TOPIC_ANSWERED",
    "MAX_RATE",
    "MIN_ON_TOPIC",
    "OFF_TOPIC_ANSWERED",
    "PSEUDO_QUERIES",
    "SelfCalibration",
    "hybrid_evidence",
    "hybrid_pair",
    "off_topic_bar",
    "off_topic_questions",
    "pseudo_on_topic",
    "recalibrate",
    "recalibrate_after_ingest",
    "record_self_calibration",
    "self_calibrate",
]

PSEUDO_QUERIES = 200
"""On-topic queries sampled from a collection's chunks."""
MAX_RATE = 0.1
"""bm25 abstains only where its bar errs on at most this share of either pseudo set (without
a bar it answers every off-topic question that shares a word with the collection)."""
MIN_ON_TOPIC = 20
"""bm25's bar is applied only where at least this many pseudo on-topic queries measured it: a
collection of a few passages yields too few to say whether it separates (adr/0072)."""
OFF_TOPIC_ANSWERED = 0.05
"""The share of the shipped off-topic questions bm25's calibrated bar may still answer
(adr/0066)."""
HYBRID_OFF_TOPIC_ANSWERED = 0.025
"""Hybrid's share of them, the floor and the lexical share together (``hybrid_pair``): on
SciFact half of bm25's allowance stops more near misses without costing held-out on-topic
questions; dense mode applies the same floor (adr/0084)."""
OFF_TOPIC_FILE = "off-topic-questions.txt"
_WORD = re.compile(r"[^\W\d_]{2,}")


def off_topic_questions() -> list[str]:
    """The shipped general questions (everyday topics, several languages; Apache-2.0)."""
    text = resources.files("groundkit.evaluation").joinpath("data", OFF_TOPIC_FILE)
    lines = text.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256(":".join(parts).encode("utf-8")).digest()[:8], "big")


def pseudo_on_topic(retriever: Searcher, count: int = PSEUDO_QUERIES) -> list[str]:
    """Up to ``count`` queries the collection can answer, sampled deterministically: chunks
    ordered by id, evenly spaced; every other one gives its heading, the rest two to four of
    its words at places seeded by the chunk's id, and one word of another sampled chunk (a
    real question names things its answer does not hold)."""
    every = chain.from_iterable(reader.iter_chunks() for reader in retriever.readers)
    chunks = sorted(every, key=lambda chunk: chunk.chunk_id)  # a sharded collection alike
    if not chunks:
        return []
    picks = [chunks[i * len(chunks) // count] for i in range(min(count, len(chunks)))]
    words_of = [_WORD.findall(chunk.text) for chunk in picks]
    queries: list[str] = []
    for i, chunk in enumerate(picks):
        headings = chunk.metadata.get("heading_path") or []
        if i % 2 == 0 and headings and len(_WORD.findall(str(headings[-1]))) >= 2:
            queries.append(str(headings[-1]))
            continue
        words = words_of[i]
        if len(words) < 2:
            continue
        seed = _seed(chunk.chunk_id, str(i))
        picked = [words[(seed >> (8 * j)) % len(words)] for j in range(2 + seed % 3)]
        other = words_of[(i + 1 + (seed >> 40) % max(1, len(picks) - 1)) % len(picks)]
        if other:
            picked.append(other[(seed >> 48) % len(other)])
        queries.append(" ".join(picked))
    return queries


@dataclass(frozen=True)
class SelfCalibration:
    """What a collection measured on itself: bm25's bar and, with a dense side, the floor
    and hybrid's share, with every pseudo query's evidence."""

    generation: int
    on_topic: int
    off_topic: int
    bm25_share: float
    bm25_on: tuple[float, ...]
    bm25_off: tuple[float, ...]
    floor: FloorRecord | None = None

    def bm25_rates(self) -> tuple[float, float]:
        """(false abstention, false answer) of bm25 at its bar."""
        return _rates(self.bm25_on, self.bm25_off, self.bm25_share)

    @property
    def separates(self) -> bool:
        abstained, answered = self.bm25_rates()
        measured = self.on_topic >= MIN_ON_TOPIC
        return measured and abstained <= MAX_RATE and answered <= MAX_RATE

    def _measured(self) -> dict[str, Any]:
        abstained, answered = self.bm25_rates()
        return {
            "source": "self",
            "queries": {"on_topic": self.on_topic, "off_topic": self.off_topic},
            "false_abstention": round(abstained, 4),
            "false_answer": round(answered, 4),
            "on_topic": _summary(self.bm25_on),
            "off_topic": _summary(self.bm25_off),
        }

    def lexical_bar(self) -> LexicalBar:
        return LexicalBar(self.bm25_share, self.separates, self.generation, self._measured())

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"bm25": {**self.lexical_bar().to_dict()}}
        if self.floor is not None:
            out["hybrid"] = self.floor.to_dict()
        return out


def _rates(on: Sequence[float], off: Sequence[float], bar: float) -> tuple[float, float]:
    on_sorted, off_sorted = sorted(on), sorted(off)
    abstained = bisect.bisect_left(on_sorted, bar) / len(on_sorted) if on_sorted else 0.0
    over = len(off_sorted) - bisect.bisect_left(off_sorted, bar)
    return abstained, over / len(off_sorted) if off_sorted else 0.0


def off_topic_bar(off_topic: Sequence[float], allowed: int) -> float:
    """The lowest bar that at most ``allowed`` of the ``off_topic`` values reach: midway
    between the highest value it must stop and the next one up, rounded to three decimals
    where that lets through the same values (0.0 when none needs stopping)."""
    ordered = sorted(off_topic)
    if len(ordered) <= allowed:
        return 0.0
    stop = ordered[len(ordered) - allowed - 1]
    higher = ordered[bisect.bisect_right(ordered, stop) :]
    cut = (stop + higher[0]) / 2 if higher else stop + 0.001
    rounded = round(cut, 3)
    return rounded if stop < rounded and (not higher or rounded <= higher[0]) else cut


def _allowed(off_topic: int, share: float = OFF_TOPIC_ANSWERED) -> int:
    return math.floor(share * off_topic)


def self_calibrate(
    retriever: Searcher, count: int = PSEUDO_QUERIES, *, dense: bool = True
) -> SelfCalibration:
    """Calibrate ``retriever``'s collection on its own pseudo queries (nothing is written);
    ``dense=False``: bm25's bar only, no query embedded."""
    framing = retriever.question_terms()
    on_queries = [
        query
        for query in pseudo_on_topic(retriever, count)
        if any(term not in framing for term in retriever.analyzer.terms(query))
    ]
    off_queries = off_topic_questions()
    on = [retriever.lexical_evidence(q) for q in on_queries]
    off = [retriever.lexical_evidence(q) for q in off_queries]
    share = min(1.0, off_topic_bar(off, _allowed(len(off)))) if on else 1.0
    embedder = retriever.embedder
    floor = None
    if dense and embedder is not None and embedder.identity.semantic and on_queries:
        floor = _hybrid(retriever, on_queries, off_queries)
    return SelfCalibration(
        retriever.generation,
        len(on_queries),
        len(off_queries),
        share,
        tuple(on),
        tuple(off),
        floor,
    )


Evidence = tuple[float, float]
"""A query's hybrid evidence: its best dense similarity and its BM25 share (adr/0049)."""


def hybrid_evidence(retriever: Searcher, queries: Sequence[str]) -> list[Evidence]:
    """Each query's best dense similarity (no floor applied) and hybrid's lexical share."""
    options = HybridOptions(min_lexical_share=0.0)
    found: list[Evidence] = []
    for query in queries:
        meta = retriever.search(
            query, 1, "hybrid", min_similarity=-math.inf, hybrid=options, highlight=False
        ).metadata
        best = meta["dense_best"]
        found.append((-math.inf if best is None else best, meta["lexical_share"]))
    return found


def hybrid_pair(off: Sequence[Evidence], allowed: int) -> Evidence:
    """The floor and share (a query passes on either) letting through at most ``allowed`` of
    ``off``: the floor the lowest letting through half of them (rounded down), the share the
    lowest letting through the rest of the allowance among the queries under the floor."""
    floor = off_topic_bar([dense for dense, _ in off], allowed // 2)
    passed = sum(1 for dense, _ in off if dense >= floor)
    rest = [share for dense, share in off if dense < floor]
    return floor, min(1.0, off_topic_bar(rest, allowed - passed))


def _hybrid(retriever: Searcher, on_queries: list[str], off_queries: list[str]) -> FloorRecord:
    """The dense floor and hybrid's share, together letting through at most
    ``HYBRID_OFF_TOPIC_ANSWERED`` of the off-topic questions (``hybrid_pair``)."""
    assert retriever.embedder is not None
    on, off = hybrid_evidence(retriever, on_queries), hybrid_evidence(retriever, off_queries)
    floor, share = hybrid_pair(off, _allowed(len(off), HYBRID_OFF_TOPIC_ANSWERED))
    on_dense, off_dense = [d for d, _ in on], [d for d, _ in off]
    dense_abstained, dense_answered = _rates(on_dense, off_dense, floor)
    abstained = sum(1 for dense, lexical in on if dense < floor and lexical < share)
    answered = sum(1 for dense, lexical in off if dense >= floor or lexical >= share)
    measured = {
        "source": "self",
        "queries": {"on_topic": len(on), "off_topic": len(off)},
        "on_topic": _summary(on_dense),
        "off_topic": _summary(off_dense),
        "false_abstention": round(dense_abstained, 4),
        "false_answer": round(dense_answered, 4),
        "hybrid_false_abstention": round(abstained / len(on), 4),
        "hybrid_false_answer": round(answered / len(off), 4),
    }
    return FloorRecord(floor, retriever.embedder.identity, measured, share)


def record_self_calibration(retriever: Searcher, result: SelfCalibration) -> list[Path]:
    """Record ``result`` beside ``retriever``'s collection file: ``lexical-bar.json``, and the
    floor and hybrid share in ``dense-floor.json`` where it has a semantic embedder; beside
    each shard's, the same, for a sharded collection (its shards must agree on them)."""
    written = []
    for reader in retriever.readers:
        written.append(write_lexical_bar(reader.location, result.lexical_bar()))
        if result.floor is not None:
            written.append(write_floor(reader.location, result.floor))
    return written


def recalibrate_after_ingest(retriever: Searcher) -> SelfCalibration | None:
    """What an ingest does last (adr/0072): the collection calibrates itself again and records
    it, unless its bar was measured on this generation already or it holds no chunk (None).
    A floor the user set (``groundkit calibrate --queries`` or ``--floor``) is kept: it came
    from real queries; bm25's bar is then calibrated alone."""
    location = retriever.readers[0].location
    bar = read_lexical_bar(location)
    chunks = sum(reader.chunk_count for reader in retriever.readers)
    if not chunks or (bar and bar.generation == retriever.generation):
        return None
    embedder = retriever.embedder
    kept = None if embedder is None else read_floor(location, embedder.identity)
    result = self_calibrate(retriever, dense=kept is None or kept.source == "self-calibrated")
    record_self_calibration(retriever, result)
    return result


def recalibrate(
    index_dir: str | Path, collection: str, embedder: Embedder | None = None
) -> dict[str, Any] | None:
    """The last step of an ingest, ordinary or sharded: ``recalibrate_after_ingest`` on the
    collection as stored, what it recorded (``SelfCalibration.to_dict``) or None."""
    with Searcher.open(index_dir, collection, embedder=embedder) as retriever:
        result = recalibrate_after_ingest(retriever)
    return None if result is None else result.to_dict()
