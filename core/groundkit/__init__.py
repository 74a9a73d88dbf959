"""groundkit: deterministic retrieval whose every answer carries a citation you can re-check.

>>> import groundkit
>>> report = groundkit.ingest(groundkit.sample_corpus(), index_dir=".groundkit")
>>> with groundkit.Searcher.open(".groundkit") as searcher:
...     response = searcher.search("how do I report a leak")
>>> searcher.verify(response.results[0]).verdict  # doctest: +SKIP
'verified'

This module only re-exports the public API, each name imported on first use (adr/0047), so
``import groundkit`` stays cheap; a host of stored collections (a service, a shard engine) uses
``StoredCollection`` (adr/0067), and ``groundkit.extend`` holds what plugins need.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.config import (
    DEFAULT_COLLECTION,
    DEFAULT_INDEX_DIR,
    MAX_GROUP_PASSAGES,
    MAX_LEG_DEPTH,
    MAX_QUERY_CHARS,
    MAX_RRF_K,
    MAX_TOP_K,
    BM25Params,
    ChunkerSettings,
    IngestSettings,
)
from groundkit.config import VERSION as __version__  # noqa: N811
from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    CorruptCollectionError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    InvalidQueryError,
    MissingRecordError,
    ReadOnlyCollectionError,
    RerankerNotConfiguredError,
    RetrievalError,
    SearchTimeoutError,
    ShardUnavailableError,
    StorageError,
)
from groundkit.lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from groundkit.analysis.analyzer import Analyzer
    from groundkit.collection import check_collection
    from groundkit.contracts import Chunk, Citation, Document, SearchResult
    from groundkit.deadlines import deadline
    from groundkit.embedding import (
        Embedder,
        EmbeddingIdentity,
        HashEmbedder,
        get_embedder,
        register_embedder,
    )
    from groundkit.embedding.embedder_registry import resolve_embedder
    from groundkit.extract import Extraction, Extractor, ExtractorIdentity, register_extractor
    from groundkit.ingestion import (
        Indexer,
        IngestProgress,
        IngestReport,
        RelocateReport,
        RemoveReport,
        SourceRoot,
        ingest,
        list_sources,
        relocate_sources,
        remove_sources,
        sample_corpus,
    )
    from groundkit.responses import ResultGroup, SearchResponse, SearchTrace
    from groundkit.retrieval import (
        CollectionVerification,
        GroupOptions,
        HybridOptions,
        RerankOptions,
        Searcher,
        SearchFilter,
        SearchMode,
        SearchRequest,
        Snippet,
        Verification,
        citation_for,
        resolve_citation,
        snippet,
        verify_citation,
        verify_collection,
    )
    from groundkit.retrieval import (
        Retriever as Retriever,  # the former name of Searcher, not in __all__
    )
    from groundkit.retrieval.citations import verify_document_citation
    from groundkit.retrieval.rerank import LogitReranker, Reranker
    from groundkit.retrieval.rerankers import register_reranker, resolve_reranker
    from groundkit.stored_collection import StoredCollection, list_collections

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit.analysis.analyzer": ("Analyzer",),
    "groundkit.collection": ("check_collection",),
    "groundkit.deadlines": ("deadline",),
    "groundkit.contracts": ("Chunk", "Citation", "Document", "SearchResult"),
    "groundkit.responses": ("ResultGroup", "SearchResponse", "SearchTrace"),
    "groundkit.embedding": (
        "Embedder",
        "EmbeddingIdentity",
        "HashEmbedder",
        "get_embedder",
        "register_embedder",
    ),
    "groundkit.embedding.embedder_registry": ("resolve_embedder",),
    "groundkit.extract": ("Extraction", "Extractor", "ExtractorIdentity", "register_extractor"),
    "groundkit.ingestion": (
        "Indexer",
        "IngestProgress",
        "IngestReport",
        "RelocateReport",
        "RemoveReport",
        "SourceRoot",
        "ingest",
        "list_sources",
        "relocate_sources",
        "remove_sources",
        "sample_corpus",
    ),
    "groundkit.retrieval": (
        "CollectionVerification",
        "GroupOptions",
        "HybridOptions",
        "RerankOptions",
        "Retriever",
        "SearchFilter",
        "SearchMode",
        "SearchRequest",
        "Searcher",
        "Snippet",
        "Verification",
        "citation_for",
        "resolve_citation",
        "snippet",
        "verify_citation",
        "verify_collection",
    ),
    "groundkit.retrieval.citations": ("verify_document_citation",),
    "groundkit.retrieval.rerank": ("LogitReranker", "Reranker"),
    "groundkit.retrieval.rerankers": ("register_reranker", "resolve_reranker"),
    "groundkit.stored_collection": ("StoredCollection", "list_collections"),
}
__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_INDEX_DIR",
    "MAX_GROUP_PASSAGES",
    "MAX_LEG_DEPTH",
    "MAX_QUERY_CHARS",
    "MAX_RRF_K",
    "MAX_TOP_K",
    "Analyzer",
    "BM25Params",
    "Chunk",
    "ChunkerSettings",
    "Citation",
    "CollectionNotFoundError",
    "CollectionVerification",
    "ConfigurationError",
    "CorruptCollectionError",
    "Document",
    "Embedder",
    "EmbeddingIdentity",
    "Extraction",
    "Extractor",
    "ExtractorIdentity",
    "GroundkitError",
    "GroupOptions",
    "HashEmbedder",
    "HybridOptions",
    "IndexIdentityError",
    "Indexer",
    "IngestProgress",
    "IngestReport",
    "IngestSettings",
    "IngestionError",
    "InvalidQueryError",
    "LogitReranker",
    "MissingRecordError",
    "ReadOnlyCollectionError",
    "RelocateReport",
    "RemoveReport",
    "RerankOptions",
    "Reranker",
    "RerankerNotConfiguredError",
    "ResultGroup",
    "RetrievalError",
    "SearchFilter",
    "SearchMode",
    "SearchRequest",
    "SearchResponse",
    "SearchResult",
    "SearchTimeoutError",
    "SearchTrace",
    "Searcher",
    "ShardUnavailableError",
    "Snippet",
    "SourceRoot",
    "StorageError",
    "StoredCollection",
    "Verification",
    "__version__",
    "check_collection",
    "citation_for",
    "deadline",
    "get_embedder",
    "ingest",
    "list_collections",
    "list_sources",
    "register_embedder",
    "register_extractor",
    "register_reranker",
    "relocate_sources",
    "remove_sources",
    "resolve_citation",
    "resolve_embedder",
    "resolve_reranker",
    "sample_corpus",
    "snippet",
    "verify_citation",
    "verify_collection",
    "verify_document_citation",
]


if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name
    __getattr__, __dir__ = _lazy_exports(__name__, _HOMES, __all__, subpackages=True)
