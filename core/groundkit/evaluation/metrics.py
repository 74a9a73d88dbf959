"""Ranking metrics as trec_eval / pytrec_eval compute them (BEIR's evaluator uses those).

``run`` maps document id -> score (higher is better); ties in score are ordered by document id
descending, as trec_eval does. ``qrels`` maps document id -> graded relevance (> 0 relevant).
nDCG uses linear gains and log2(rank + 1) discounts; the ideal ranking is over all judged
relevant documents.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

__all__ = ["average_precision", "ndcg", "ranked", "recall", "reciprocal_rank"]


def ranked(run: Mapping[str, float]) -> list[str]:
    """Document ids best first, ties broken as trec_eval does (descending id)."""
    return [
        doc for doc, _ in sorted(run.items(), key=lambda item: (item[1], item[0]), reverse=True)
    ]


def ndcg(run: Mapping[str, float], qrels: Mapping[str, int], k: int) -> float:
    ideal_gains = sorted((g for g in qrels.values() if g > 0), reverse=True)[:k]
    ideal = sum(g / math.log2(i + 2) for i, g in enumerate(ideal_gains))
    if ideal == 0:
        return 0.0
    gains = (max(qrels.get(doc, 0), 0) for doc in ranked(run)[:k])
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains)) / ideal


def recall(run: Mapping[str, float], qrels: Mapping[str, int], k: int) -> float:
    relevant = {doc for doc, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    return sum(1 for doc in ranked(run)[:k] if doc in relevant) / len(relevant)


def reciprocal_rank(run: Mapping[str, float], qrels: Mapping[str, int], k: int) -> float:
    for i, doc in enumerate(ranked(run)[:k]):
        if qrels.get(doc, 0) > 0:
            return 1.0 / (i + 1)
    return 0.0


def average_precision(run: Mapping[str, float], qrels: Mapping[str, int], k: int) -> float:
    relevant = {doc for doc, g in qrels.items() if g > 0}
    if not relevant:
        return 0.0
    hits, total = 0, 0.0
    for i, doc in enumerate(ranked(run)[:k]):
        if doc in relevant:
            hits += 1
            total += hits / (i + 1)
    return total / len(relevant)
