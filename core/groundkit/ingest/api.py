"""``ingest()``: the one call that opens a collection, ingests a path into it and closes it.

The CLI, the static-site builder and the evaluation all ingest through here, so a refused
source, the vector-store refresh and closing the store happen the same way everywhere.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, IngestSettings
from groundkit.embedding.base import Embedder
from groundkit.ingest.discover import require_source
from groundkit.ingest.indexer import Indexer, IngestProgress
from groundkit.ingest.report import IngestReport

__all__ = ["ingest", "sample_corpus"]


def sample_corpus() -> Path:
    """The folder of the bundled sample documents (a small water-utility handbook)."""
    return Path(__file__).resolve().parent.parent / "sample"


def ingest(
    path: str | Path,
    *,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str = DEFAULT_COLLECTION,
    analyzer: Analyzer | None = None,
    settings: IngestSettings | None = None,
    embedder: Embedder | None = None,
    vector_store: str | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
) -> IngestReport:
    """Ingest a file or folder into a stored collection (created on first use).

    With ``embedder`` (e.g. ``get_embedder("hash")``) the collection gets a dense side too.
    ``vector_store`` (``exact``, ``usearch``) is built or refreshed afterwards and recorded as
    the collection's default; without it, the recorded one (if any) is refreshed, so a derived
    index never lags the collection. ``progress`` is called after each file.
    """
    from groundkit.collection import open_reader, open_store
    from groundkit.vectors.registry import refresh_vector_store

    require_source(path)  # a missing source is refused before the collection is created
    store = open_store(index_dir, collection)
    try:
        indexer = Indexer(store, analyzer=analyzer, settings=settings, embedder=embedder)
        report = indexer.ingest(path, progress=progress)
    finally:
        store.close()
    with open_reader(index_dir, collection) as reader:
        refresh_vector_store(reader, vector_store, location=reader.location)
    return report
