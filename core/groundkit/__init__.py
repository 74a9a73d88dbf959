"""groundkit: deterministic retrieval whose every answer carries a citation you can re-check.

>>> import groundkit
>>> report = groundkit.ingest(groundkit.sample_corpus(), index_dir=".groundkit")
>>> with groundkit.Retriever.open(".groundkit") as retriever:
...     response = retriever.search("how do I report a leak")
>>> retriever.verify(response.results[0]).verdict  # doctest: +SKIP
'verified'
"""

from __future__ import annotations

from collections.abc import Callable
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
from groundkit.embedding import (
    Embedder,
    EmbeddingIdentity,
    HashEmbedder,
    get_embedder,
    register_embedder,
)
from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    RerankerNotConfiguredError,
    RetrievalError,
    StorageError,
)
from groundkit.ingest import Indexer, IngestProgress, IngestReport
from groundkit.retrieval import Retriever, Verification, resolve_citation, verify_citation
from groundkit.retrieval.rerank import LogitReranker, Reranker

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
    "Embedder",
    "EmbeddingIdentity",
    "GroundkitError",
    "HashEmbedder",
    "IndexIdentityError",
    "Indexer",
    "IngestProgress",
    "IngestReport",
    "IngestSettings",
    "IngestionError",
    "LogitReranker",
    "Reranker",
    "RerankerNotConfiguredError",
    "RetrievalError",
    "Retriever",
    "SearchResponse",
    "SearchResult",
    "StorageError",
    "Verification",
    "__version__",
    "get_embedder",
    "ingest",
    "register_embedder",
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
    embedder: Embedder | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
) -> IngestReport:
    """Ingest a file or folder into a stored collection (created on first use).

    With ``embedder`` (e.g. ``get_embedder("hash")``) the collection gets a dense side too;
    ``progress`` is called after each file.
    """
    from groundkit.collection import open_store
    from groundkit.ingest.discover import require_source

    require_source(path)  # a missing source is refused before the collection is created
    store = open_store(index_dir, collection)
    try:
        indexer = Indexer(store, analyzer=analyzer, settings=settings, embedder=embedder)
        return indexer.ingest(path, progress=progress)
    finally:
        store.close()
