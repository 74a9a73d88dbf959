"""groundkit: deterministic retrieval whose every answer carries a citation you can re-check.

>>> import groundkit
>>> report = groundkit.ingest(groundkit.sample_corpus(), index_dir=".groundkit")
>>> with groundkit.Retriever.open(".groundkit") as retriever:
...     response = retriever.search("how do I report a leak")
>>> retriever.verify(response.results[0]).verdict  # doctest: +SKIP
'verified'
"""

from __future__ import annotations

from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import (
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    BM25Params,
    ChunkerSettings,
    IngestSettings,
)
from groundkit.contracts import Chunk, Citation, Document, SearchResponse, SearchResult
from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    RetrievalError,
    StorageError,
)
from groundkit.ingest import Indexer, IngestProgress, IngestReport
from groundkit.retrieval import Retriever, Verification, resolve_citation, verify_citation

__version__ = "0.1.0"

__all__ = [
    "MAX_QUERY_CHARS",
    "MAX_TOP_K",
    "Analyzer",
    "BM25Params",
    "Chunk",
    "ChunkerSettings",
    "Citation",
    "CollectionNotFoundError",
    "ConfigurationError",
    "Document",
    "GroundkitError",
    "IndexIdentityError",
    "Indexer",
    "IngestProgress",
    "IngestReport",
    "IngestSettings",
    "IngestionError",
    "RetrievalError",
    "Retriever",
    "SearchResponse",
    "SearchResult",
    "StorageError",
    "Verification",
    "__version__",
    "ingest",
    "resolve_citation",
    "sample_corpus",
    "verify_citation",
]


def sample_corpus() -> Path:
    """The folder of the bundled sample documents (a small water-utility handbook)."""
    return Path(__file__).resolve().parent / "sample"


def ingest(
    path: str | Path,
    *,
    index_dir: str | Path = ".groundkit",
    collection: str = "default",
    analyzer: Analyzer | None = None,
    settings: IngestSettings | None = None,
) -> IngestReport:
    """Ingest a file or folder into a stored collection (created on first use)."""
    from groundkit.collection import open_store

    store = open_store(index_dir, collection)
    try:
        return Indexer(store, analyzer=analyzer, settings=settings).ingest(path)
    finally:
        store.close()
