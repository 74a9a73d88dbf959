"""Measuring a dense similarity floor: on-topic queries against off-topic ones (adr/0024).

Each query's best similarity in the collection is taken; a floor abstains on a query whose
best similarity is under it. On-topic queries (ones the collection answers) under the floor
are false abstentions; off-topic queries (another collection's, gibberish) at or over it are
false answers. The floor chosen minimises the sum of the two rates, in the middle of the
widest such gap, rounded to three decimals where that changes neither rate.

Hybrid's lexical bar is measured the same way on the queries left without dense evidence at
that floor: their BM25 share of the ideal score (adr/0049), on-topic under the bar being false
abstentions and off-topic at or over it false answers.
"""

from __future__ import annotations

import bisect
import itertools
import json
import math
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.errors import ConfigurationError
from groundkit.evaluation.beir import BeirDataset
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval import HybridOptions, Searcher
from groundkit.retrieval.floor import FloorRecord

__all__ = [
    "Calibration",
    "best_similarities",
    "calibrate",
    "choose_floor",
    "choose_share",
    "lexical_shares",
    "load_queries",
]


@dataclass(frozen=True)
class Calibration:
    """A floor and the best similarities of the queries it was measured on; hybrid's lexical
    bar and the shares of the queries under the floor it was measured on."""

    floor: float
    on_topic: tuple[float, ...]
    off_topic: tuple[float, ...]
    identity: EmbeddingIdentity
    lexical_share: float | None = None
    on_shares: tuple[float, ...] = ()
    off_shares: tuple[float, ...] = ()

    def hybrid_rates(self) -> tuple[float, float]:
        """(false abstention, false answer) of hybrid at the floor and the lexical bar."""
        share = self.lexical_share or 0.0
        over = sum(1 for s in self.off_topic if s >= self.floor)
        abstained = sum(1 for s in self.on_shares if s < share) / len(self.on_topic)
        answered = (over + sum(1 for s in self.off_shares if s >= share)) / len(self.off_topic)
        return abstained, answered

    def rates(self, floor: float | None = None) -> tuple[float, float]:
        """(false abstention, false answer) at ``floor`` (default: the chosen one)."""
        at = self.floor if floor is None else floor
        on = sorted(self.on_topic)
        off = sorted(self.off_topic)
        abstained = bisect.bisect_left(on, at) / len(on) if on else 0.0
        answered = (len(off) - bisect.bisect_left(off, at)) / len(off) if off else 0.0
        return abstained, answered

    def to_dict(self) -> dict[str, Any]:
        false_abstention, false_answer = self.rates()
        out: dict[str, Any] = {
            "floor": self.floor,
            "false_abstention": round(false_abstention, 4),
            "false_answer": round(false_answer, 4),
            "on_topic": _summary(self.on_topic),
            "off_topic": _summary(self.off_topic),
            "embedding": self.identity.to_dict(),
        }
        if self.lexical_share is not None:
            abstained, answered = self.hybrid_rates()
            out["lexical_share"] = self.lexical_share
            out["hybrid_false_abstention"] = round(abstained, 4)
            out["hybrid_false_answer"] = round(answered, 4)
        return out

    def record(self) -> FloorRecord:
        measured = self.to_dict()
        del measured["embedding"], measured["floor"]
        measured.pop("lexical_share", None)
        return FloorRecord(self.floor, self.identity, measured, self.lexical_share)


def _summary(values: Sequence[float]) -> dict[str, Any]:
    ordered = sorted(values)
    if not ordered:
        return {"queries": 0}

    def pick(share: float) -> float:
        return round(ordered[min(len(ordered) - 1, int(share * len(ordered)))], 4)

    return {
        "queries": len(ordered),
        "min": round(ordered[0], 4),
        "p05": pick(0.05),
        "median": round(statistics.median(ordered), 4),
        "p95": pick(0.95),
        "max": round(ordered[-1], 4),
    }


def choose_floor(on_topic: Sequence[float], off_topic: Sequence[float]) -> float:
    """The floor minimising false abstention + false answer (see the module docstring)."""
    if not on_topic or not off_topic:
        raise ConfigurationError("calibration needs at least one on-topic and one off-topic query")
    on, off = sorted(on_topic), sorted(off_topic)
    values = sorted(set(on) | set(off))
    cuts = [
        values[0] - 0.001,
        *((a + b) / 2 for a, b in itertools.pairwise(values)),
        values[-1] + 0.001,
    ]

    def error(cut: float) -> float:
        abstained = bisect.bisect_left(on, cut) / len(on)
        return abstained + (len(off) - bisect.bisect_left(off, cut)) / len(off)

    best: tuple[float, float, float] | None = None  # (error, -gap, cut)
    for i, cut in enumerate(cuts):
        low = values[i - 1] if i else cut
        high = values[i] if i < len(values) else cut
        candidate = (error(cut), -(high - low), cut)
        if best is None or candidate < best:
            best = candidate
    assert best is not None
    rounded = round(best[2], 3)
    return rounded if error(rounded) == best[0] else best[2]


def best_similarities(retriever: Searcher, queries: Sequence[str]) -> list[float]:
    """Each query's best dense similarity in the collection (no floor applied)."""
    found: list[float] = []
    for query in queries:
        response = retriever.search(
            query, top_k=1, mode="dense", min_similarity=-math.inf, highlight=False
        )
        found.append(response.results[0].score if response.results else -math.inf)
    return found


def calibrate(
    retriever: Searcher, on_topic: Sequence[str], off_topic: Sequence[str]
) -> Calibration:
    """Measure both query sets on ``retriever``'s collection and choose its floor."""
    embedder = retriever.embedder
    if embedder is None:
        raise ConfigurationError(
            "this collection has no dense side; calibration measures an embedder's similarities"
        )
    on = best_similarities(retriever, on_topic)
    off = best_similarities(retriever, off_topic)
    floor = choose_floor(on, off)
    on_shares = lexical_shares(retriever, on_topic, floor)
    off_shares = lexical_shares(retriever, off_topic, floor)
    return Calibration(
        floor,
        tuple(on),
        tuple(off),
        embedder.identity,
        choose_share(on_shares, off_shares),
        tuple(on_shares),
        tuple(off_shares),
    )


def lexical_shares(retriever: Searcher, queries: Sequence[str], floor: float) -> list[float]:
    """The BM25 share of each query without dense evidence at ``floor`` (adr/0049)."""
    options = HybridOptions(min_lexical_share=0.0)
    found: list[float] = []
    for query in queries:
        meta = retriever.search(
            query, 1, "hybrid", min_similarity=floor, hybrid=options, highlight=False
        ).metadata
        if meta["dense_best"] is None or meta["dense_best"] < floor:
            found.append(meta["lexical_share"])
    return found


def choose_share(on_topic: Sequence[float], off_topic: Sequence[float]) -> float:
    """The lexical bar for the queries under the floor, as ``choose_floor`` picks a floor;
    0 when no off-topic query needs it, just over the highest off-topic share when no on-topic
    query does."""
    if not off_topic:
        return 0.0
    if not on_topic:
        return min(1.0, math.floor(max(off_topic) * 1000 + 1) / 1000)
    return min(1.0, max(0.0, choose_floor(on_topic, off_topic)))


def load_queries(source: str | Path) -> list[str]:
    """Queries from a BEIR dataset folder (its judged test queries), a ``.jsonl`` file (each
    object's ``text``) or a text file (one query per line); blank ones skipped."""
    path = Path(source)
    if path.is_dir():
        dataset = BeirDataset.load(path)
        return [text for _, text in sorted(dataset.queries.items()) if text.strip()]
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigurationError(
            f"cannot read queries from {path}: {exc}", subject=str(path)
        ) from None
    if path.suffix == ".jsonl":
        try:
            texts = [str(json.loads(line)["text"]) for line in lines if line.strip()]
        except (ValueError, KeyError, TypeError) as exc:
            raise ConfigurationError(
                f"{path}: each line must be a JSON object with a 'text' field ({exc})",
                subject=str(path),
            ) from None
    else:
        texts = lines
    queries = [t for t in texts if t.strip()]
    if not queries:
        raise ConfigurationError(f"{path} holds no queries", subject=str(path))
    return queries
