"""The extension surface: everything an extra or a third-party plugin needs, in one import.

An embedder, a vector store, a reranker or an extractor (a file format) implements its
protocol here and registers itself by name; it reports failures through the error tree and
tells users how to install what it needs with ``install_hint``. Extras import from this
module only, never from internals, so the internals can move without breaking them. A service
over stored collections (the ``serve`` extra) also finds here how collections are located,
opened as read views and audited.
"""

from __future__ import annotations

from groundkit.collection import collection_file, collection_status, open_reader
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR
from groundkit.contracts import SearchResult
from groundkit.embedding.embedder import Embedder
from groundkit.embedding.embedder_registry import EmbedderFactory, register_embedder
from groundkit.errors import (
    ConfigurationError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    RetrievalError,
    StorageError,
)
from groundkit.extract import Extraction, Extractor, ExtractorIdentity, register_extractor
from groundkit.index.topk import select_top_k
from groundkit.manifest import EmbeddingIdentity
from groundkit.plugins import EXTRAS, NamedExtra, install_hint
from groundkit.retrieval.audit import verify_reader
from groundkit.retrieval.citations import citation_for, citation_root, verify_document_citation
from groundkit.retrieval.rerank import Reranker, rerank_by_logits, sigmoid
from groundkit.retrieval.rerankers import RerankerFactory, register_reranker
from groundkit.store.protocols import CollectionReader, TieKey
from groundkit.store.sqlite.stamp import altered_since_stamp
from groundkit.vectors import TieKeys, VectorStore, pack_vector, unpack_vector
from groundkit.vectors.store_registry import VectorStoreLoader, register_vector_store

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_INDEX_DIR",
    "EXTRAS",
    "CollectionReader",
    "ConfigurationError",
    "Embedder",
    "EmbedderFactory",
    "EmbeddingIdentity",
    "Extraction",
    "Extractor",
    "ExtractorIdentity",
    "GroundkitError",
    "IndexIdentityError",
    "IngestionError",
    "NamedExtra",
    "Reranker",
    "RerankerFactory",
    "RetrievalError",
    "SearchResult",
    "StorageError",
    "TieKey",
    "TieKeys",
    "VectorStore",
    "VectorStoreLoader",
    "altered_since_stamp",
    "citation_for",
    "citation_root",
    "collection_file",
    "collection_status",
    "install_hint",
    "open_reader",
    "pack_vector",
    "register_embedder",
    "register_extractor",
    "register_reranker",
    "register_vector_store",
    "rerank_by_logits",
    "select_top_k",
    "sigmoid",
    "unpack_vector",
    "verify_document_citation",
    "verify_reader",
]
