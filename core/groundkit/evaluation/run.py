"""Evaluating groundkit on a BEIR dataset: write the corpus as files, ingest, search, score.

The corpus is written as one text file per document (title + text), so every result of an
evaluation is an ordinary cited passage that ``verify`` can re-read. Chunk hits are scored at
document level by their best chunk.
"""

from __future__ import annotations

import statistics
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import MAX_TOP_K, BM25Params, ChunkerSettings, IngestSettings
from groundkit.evaluation import metrics
from groundkit.evaluation.beir import BeirDataset
from groundkit.ingest import Indexer, IngestProgress
from groundkit.retrieval import Retriever
from groundkit.store.base import CollectionStore

__all__ = ["EvaluationResult", "build_collection", "evaluate"]

WHOLE_DOCUMENT = ChunkerSettings(target_chars=100_000, overlap_chars=0)


@dataclass(frozen=True)
class EvaluationResult:
    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.metrics)


def _file_for(number: int) -> str:
    return f"{number // 1000:04}/{number:07}.txt"


def build_collection(
    dataset: BeirDataset,
    store: CollectionStore,
    workdir: Path,
    *,
    analyzer: Analyzer | None = None,
    chunker: ChunkerSettings = WHOLE_DOCUMENT,
    progress: Callable[[IngestProgress], None] | None = None,
) -> dict[str, str]:
    """Write the corpus under ``workdir`` and ingest it; returns source -> corpus id."""
    sources: dict[str, str] = {}
    for number, document in enumerate(dataset.corpus()):
        source = _file_for(number)
        path = workdir / source
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(document.flat, encoding="utf-8")
        sources[source] = document.doc_id
    settings = IngestSettings(chunker=chunker, extensions=(".txt",))
    Indexer(store, analyzer=analyzer, settings=settings).ingest(workdir, progress=progress)
    return sources


def evaluate(
    dataset: BeirDataset,
    store: CollectionStore,
    sources: dict[str, str],
    *,
    bm25: BM25Params | None = None,
    top_k: int = 100,
    cutoffs: Sequence[int] = (10, 100),
) -> EvaluationResult:
    """nDCG@10, recall@100, MRR@10, MAP@100 and latency over the dataset's judged queries."""
    per_query: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    depth = min(MAX_TOP_K, max(top_k * 10, top_k))
    small, large = min(cutoffs), max(cutoffs)
    with Retriever(store.reader(), bm25=bm25) as retriever:
        for query_id, text in sorted(dataset.queries.items()):
            started = time.perf_counter()
            response = retriever.search(text, top_k=depth) if text.strip() else None
            latencies.append((time.perf_counter() - started) * 1000)
            run: dict[str, float] = {}
            for result in response.results if response else ():
                doc_id = sources[result.source]
                if doc_id != query_id and doc_id not in run:  # best chunk first
                    run[doc_id] = result.score
                if len(run) >= top_k:
                    break
            qrels = dataset.qrels[query_id]
            per_query[query_id] = {
                f"ndcg@{small}": metrics.ndcg(run, qrels, small),
                f"recall@{large}": metrics.recall(run, qrels, large),
                f"mrr@{small}": metrics.reciprocal_rank(run, qrels, small),
                f"map@{large}": metrics.average_precision(run, qrels, large),
            }
    names = list(next(iter(per_query.values()))) if per_query else []
    summary = {name: statistics.fmean(q[name] for q in per_query.values()) for name in names}
    summary["queries"] = len(per_query)
    ordered = sorted(latencies)
    summary["latency_p50_ms"] = statistics.median(ordered) if ordered else 0.0
    summary["latency_p95_ms"] = ordered[round(0.95 * (len(ordered) - 1))] if ordered else 0.0
    return EvaluationResult(summary, per_query)
