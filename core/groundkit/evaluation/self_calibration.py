"""A collection calibrates its own "nothing here" (adr/0060): pseudo on-topic queries sampled
from its chunks (headings, runs of words), pseudo off-topic ones from a general multilingual
question set shipped with groundkit, and each mode's bar chosen by the floor's rule
(``choose_floor``: fewest false abstentions + false answers, middle of the widest gap).

bm25's bar is the lexical share (adr/0049); it is applied only where it *separates* the two
sets (both rates at most ``MAX_RATE``), so a collection whose vocabulary overlaps everyday
questions keeps answering every match. A dense collection also gets its similarity floor and
hybrid's lexical share, recorded as ``groundkit calibrate --write`` records them.
"""

from __future__ import annotations

import bisect
import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from groundkit.evaluation.floor_calibration import (
    _summary,
    best_similarities,
    choose_floor,
    choose_share,
    lexical_shares,
)
from groundkit.retrieval.floor import FloorRecord, write_floor
from groundkit.retrieval.lexical_bar import LexicalBar, write_lexical_bar
from groundkit.retrieval.retriever import Retriever

__all__ = [
    "MAX_RATE",
    "PSEUDO_QUERIES",
    "SelfCalibration",
    "off_topic_questions",
    "pseudo_on_topic",
    "record_self_calibration",
    "self_calibrate",
]

PSEUDO_QUERIES = 200
"""On-topic queries sampled from a collection's chunks."""
MAX_RATE = 0.1
"""bm25 abstains only where its bar errs on at most this share of either pseudo set (without
a bar it answers every off-topic question that shares a word with the collection)."""
OFF_TOPIC_FILE = "off-topic-questions.txt"
_WORD = re.compile(r"[^\W\d_]{2,}")


def off_topic_questions() -> list[str]:
    """The shipped general questions (everyday topics, several languages; Apache-2.0)."""
    text = resources.files("groundkit.evaluation").joinpath("data", OFF_TOPIC_FILE)
    lines = text.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]


def _seed(*parts: str) -> int:
    return int.from_bytes(hashlib.sha256(":".join(parts).encode("utf-8")).digest()[:8], "big")


def pseudo_on_topic(retriever: Retriever, count: int = PSEUDO_QUERIES) -> list[str]:
    """Up to ``count`` queries the collection can answer, sampled deterministically: chunks
    ordered by id, evenly spaced; every other one gives its heading, the rest two to four of
    its words at places seeded by the chunk's id, and one word of another sampled chunk (a
    real question names things its answer does not hold)."""
    chunks = sorted(retriever.reader.iter_chunks(), key=lambda chunk: chunk.chunk_id)
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
        return abstained <= MAX_RATE and answered <= MAX_RATE

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
    answered = (len(off_sorted) - bisect.bisect_left(off_sorted, bar)) / len(off_sorted)
    return abstained, answered if off_sorted else 0.0


def self_calibrate(retriever: Retriever, count: int = PSEUDO_QUERIES) -> SelfCalibration:
    """Calibrate ``retriever``'s collection on its own pseudo queries (nothing is written)."""
    framing = retriever.question_terms()
    on_queries = [
        query
        for query in pseudo_on_topic(retriever, count)
        if any(term not in framing for term in retriever.analyzer.terms(query))
    ]
    off_queries = off_topic_questions()
    on = [retriever.lexical_evidence(q) for q in on_queries]
    off = [retriever.lexical_evidence(q) for q in off_queries]
    share = choose_share(on, off) if on else 1.0
    floor = None
    embedder = retriever.embedder
    if embedder is not None and embedder.identity.semantic and on_queries:
        on_dense = best_similarities(retriever, on_queries)
        off_dense = best_similarities(retriever, off_queries)
        chosen = choose_floor(on_dense, off_dense)
        on_shares = lexical_shares(retriever, on_queries, chosen)
        off_shares = lexical_shares(retriever, off_queries, chosen)
        hybrid_share = choose_share(on_shares, off_shares)
        measured = {
            "source": "self",
            "queries": {"on_topic": len(on_queries), "off_topic": len(off_queries)},
            "on_topic": _summary(on_dense),
            "off_topic": _summary(off_dense),
            "false_abstention": round(_rates(on_dense, off_dense, chosen)[0], 4),
            "false_answer": round(_rates(on_dense, off_dense, chosen)[1], 4),
        }
        floor = FloorRecord(chosen, embedder.identity, measured, hybrid_share)
    return SelfCalibration(
        retriever.generation,
        len(on_queries),
        len(off_queries),
        share,
        tuple(on),
        tuple(off),
        floor,
    )


def record_self_calibration(retriever: Retriever, result: SelfCalibration) -> list[Path]:
    """Record ``result`` beside ``retriever``'s collection file: ``lexical-bar.json``, and the
    floor and hybrid share in ``dense-floor.json`` where it has a semantic embedder."""
    location = retriever.reader.location
    written = [write_lexical_bar(location, result.lexical_bar())]
    if result.floor is not None:
        written.append(write_floor(location, result.floor))
    return written
