"""Evaluating groundkit on a BEIR dataset: ingest the corpus, search, score.

Each document (title + text) is ingested from memory as the text file it would be; a kept
collection also gets those files, so every result of it is an ordinary cited passage that
``verify`` can re-read. Chunk hits are scored at document level by their best chunk.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit import codec
from groundkit.analysis.analyzer import Analyzer
from groundkit.config import MAX_TOP_K, BM25Params, ChunkerSettings, IngestSettings
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError
from groundkit.evaluation import metrics
from groundkit.evaluation.beir import BeirDataset
from groundkit.ingestion import Indexer, IngestProgress, ingest
from groundkit.retrieval import Searcher
from groundkit.retrieval.request import SearchMode
from groundkit.store import CollectionStore, MemoryStore

__all__ = [
    "EvaluationResult",
    "build_collection",
    "corpus_texts",
    "evaluate",
    "evaluate_dataset",
    "write_corpus",
]

WHOLE_DOCUMENT = ChunkerSettings(target_chars=100_000, overlap_chars=0)


@dataclass(frozen=True)
class EvaluationResult:
    """Mean metrics over the judged queries (``ndcg@10`` ...), and each query's own."""

    metrics: dict[str, float]
    per_query: dict[str, dict[str, float]]
    mode: SearchMode = "bm25"
    """The mode that was scored: the one asked for, else the collection's default (as
    ``search`` picks it: hybrid on a collection with a semantic embedder, bm25 otherwise)."""

    def to_dict(self) -> dict[str, Any]:
        return {"mode": self.mode, **self.metrics}

    def write_per_query(self, path: str | Path) -> None:
        """One JSON line per query: its id and metrics, sorted by id."""
        with open(path, "w", encoding="utf-8") as handle:
            for query_id in sorted(self.per_query):
                handle.write(codec.encode({"query_id": query_id, **self.per_query[query_id]}))
                handle.write("\n")


def _file_for(number: int) -> str:
    return f"{number // 1000:04}/{number:07}.txt"


def _write_if_changed(path: Path, text: str) -> None:
    """Write ``text`` unless the file already holds it (keeps a re-run's ingest incremental)."""
    data = text.encode("utf-8")
    try:
        if path.stat().st_size == len(data) and path.read_bytes() == data:
            return
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def corpus_texts(dataset: BeirDataset) -> tuple[dict[str, str], list[tuple[str, str]]]:
    """Each document's source (its file name) -> corpus id, and the (source, text) pairs."""
    sources: dict[str, str] = {}
    texts: list[tuple[str, str]] = []
    for number, document in enumerate(dataset.corpus()):
        source = _file_for(number)
        sources[source] = document.doc_id
        texts.append((source, document.flat))
    return sources, texts


def _write_texts(workdir: Path, texts: list[tuple[str, str]]) -> None:
    for source, text in texts:
        _write_if_changed(workdir / source, text)


def write_corpus(dataset: BeirDataset, workdir: Path) -> dict[str, str]:
    """Write each document as a text file under ``workdir``; returns source -> corpus id."""
    sources, texts = corpus_texts(dataset)
    _write_texts(workdir, texts)
    return sources


def build_collection(
    dataset: BeirDataset,
    store: CollectionStore,
    workdir: Path,
    *,
    analyzer: Analyzer | None = None,
    chunker: ChunkerSettings = WHOLE_DOCUMENT,
    progress: Callable[[IngestProgress], None] | None = None,
    embedder: Embedder | None = None,
    write_files: bool = True,
) -> dict[str, str]:
    """Ingest the corpus into ``store`` as the files under ``workdir`` (written there too
    with ``write_files``, so its citations verify); source -> corpus id."""
    sources, texts = corpus_texts(dataset)
    if write_files:
        _write_texts(workdir, texts)
    settings = IngestSettings(chunker=chunker, extensions=(".txt",))
    indexer = Indexer(store, analyzer=analyzer, settings=settings, embedder=embedder)
    indexer.ingest_texts(workdir, texts, progress=progress)
    return sources


def evaluate(  # noqa: PLR0913  keyword-only, one per `groundkit evaluate` setting
    dataset: BeirDataset,
    store: CollectionStore,
    sources: dict[str, str],
    *,
    bm25: BM25Params | None = None,
    mode: SearchMode | None = None,
    top_k: int = 100,
    cutoffs: Sequence[int] = (10, 100),
    vector_store: str | None = None,
    min_similarity: float | None = None,
    search_options: Mapping[str, Any] | None = None,
    embedder: Embedder | None = None,
) -> EvaluationResult:
    """nDCG@10, recall@100, MRR@10, MAP@100 and latency over the dataset's judged queries.

    ``mode``: default the collection's own, exactly as ``Searcher.search`` chooses it;
    ``min_similarity``: the dense floor for modes dense and hybrid (default: the collection's);
    ``search_options``: more keyword arguments of ``Searcher.search`` (``hybrid``, ``prefix``);
    ``embedder``: the one the collection was built with, where no registered name reproduces
    it (a model folder).
    """
    per_query: dict[str, dict[str, float]] = {}
    latencies: list[float] = []
    depth = min(MAX_TOP_K, max(top_k * 10, top_k))
    small, large = min(cutoffs), max(cutoffs)
    options: dict[str, Any] = dict(search_options or {})
    if min_similarity is not None:
        options["min_similarity"] = min_similarity
    reader = store.reader()
    with Searcher.of(reader, bm25=bm25, embedder=embedder, vector_store=vector_store) as retriever:
        mode = retriever.default_mode if mode is None else mode
        # A BM25 ranking at a smaller depth is a prefix of the deeper one (ties break on
        # content keys), so it is asked for first: one chunk per document needs no more.
        depths = (top_k + 1, depth) if mode == "bm25" and top_k + 1 < depth else (depth,)
        for query_id, text in sorted(dataset.queries.items()):
            started = time.perf_counter()
            run: dict[str, float] = {}
            for asked in depths if text.strip() else ():
                run = {}
                response = retriever.search(
                    text, top_k=asked, mode=mode, highlight=False, **options
                )
                for result in response.results:
                    doc_id = sources[result.source]
                    if doc_id != query_id and doc_id not in run:  # best chunk first
                        run[doc_id] = result.score
                    if len(run) >= top_k:
                        break
                if len(run) >= top_k or len(response.results) < asked:
                    break
            latencies.append((time.perf_counter() - started) * 1000)
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
    return EvaluationResult(summary, per_query, mode)


def evaluate_dataset(  # noqa: PLR0913  keyword-only, one per `groundkit evaluate` flag
    dataset_dir: str | Path,
    *,
    index_dir: str | Path | None = None,
    collection: str | None = None,
    mode: SearchMode | None = None,
    top_k: int = 100,
    bm25: BM25Params | None = None,
    analyzer: Analyzer | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    embedder: Embedder | None = None,
    vector_store: str | None = None,
    min_similarity: float | None = None,
) -> EvaluationResult:
    """Index a BEIR dataset and score ``mode`` (default: the collection's, as ``search``
    picks it) on its judged test queries.

    With ``embedder`` the corpus is embedded too (for ``dense`` and ``hybrid``; a kept
    collection reuses its own), searched through ``vector_store`` (default: exact).

    With ``index_dir`` the corpus files and the collection (default name ``beir-<dataset>``) are
    kept there, so a second run skips the ingest and every result stays verifiable; without it
    both live in a temporary folder and an in-memory store.
    """
    if not 1 <= top_k <= MAX_TOP_K:
        raise ConfigurationError(f"top_k must be from 1 to {MAX_TOP_K}, got {top_k!r}")
    dataset = BeirDataset.load(dataset_dir)
    if index_dir is None:
        store: CollectionStore = MemoryStore(dataset.root.name)
        with tempfile.TemporaryDirectory(prefix="groundkit-eval-") as tmp:
            sources = build_collection(
                dataset,
                store,
                Path(tmp),
                analyzer=analyzer,
                progress=progress,
                embedder=embedder,
                write_files=False,  # the folder goes when this returns: nothing to verify
            )
            return evaluate(
                dataset,
                store,
                sources,
                bm25=bm25,
                mode=mode,
                top_k=top_k,
                vector_store=vector_store,
                min_similarity=min_similarity,
                embedder=embedder,
            )
    from groundkit.collection import collection_file, open_store

    name = collection or f"beir-{dataset.root.name}"
    workdir = collection_file(index_dir, name).parent / "corpus"
    sources, texts = corpus_texts(dataset)
    _write_texts(workdir, texts)
    ingest(
        workdir,
        texts=texts,
        index_dir=index_dir,
        collection=name,
        analyzer=analyzer,
        settings=IngestSettings(chunker=WHOLE_DOCUMENT, extensions=(".txt",)),
        embedder=embedder,
        vector_store=vector_store,
        progress=progress,
        calibrate=False,  # an evaluation ranks every judged query (adr/0072)
    )
    kept = open_store(index_dir, name, create=False)
    try:
        return evaluate(
            dataset,
            kept,
            sources,
            bm25=bm25,
            mode=mode,
            top_k=top_k,
            vector_store=vector_store,
            min_similarity=min_similarity,
            embedder=embedder,
        )
    finally:
        kept.close()
