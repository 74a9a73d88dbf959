"""The extension door: everything an extra or a third-party plugin needs, in one import.

A plugin is a distribution that declares an entry point in the group ``groundkit.plugins``
whose target is ``register(registry: PluginRegistry) -> None`` (adr/0053). Through that one
hook it adds embedders, vector stores, rerankers, extractors (file formats), CLI commands and
shard engines; the core loads it the first time a name it does not know is asked for.

What a plugin's code needs lives here or in ``groundkit`` itself, and nowhere else: the
protocols it implements, the error tree and ``install_hint`` for its messages, how stored
collections are located, opened as read views and audited (the ``serve`` extra), the shard
layout, build steps and per-shard searcher (the ``ray`` extra), and the pieces of the CLI a
command plugs into. Extras import ``groundkit`` and this module only, a rule ``tox -e lint``
holds with an import-linter contract, so the internals can move without breaking them.

Like ``groundkit``, this module only re-exports, each name imported on first use (adr/0047).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR
from groundkit.errors import (
    ConfigurationError,
    GroundkitError,
    IndexIdentityError,
    IngestionError,
    RetrievalError,
    ShardUnavailableError,
    StorageError,
)
from groundkit.lazy import lazy_exports

if TYPE_CHECKING:
    from groundkit.cli.exits import ExitCode
    from groundkit.cli.options import Parents, positive_seconds, seconds_or_zero
    from groundkit.collection import collection_file, collection_status, open_reader
    from groundkit.contracts import SearchResult
    from groundkit.embedding.embedder import Embedder
    from groundkit.embedding.embedder_registry import (
        EmbedderFactory,
        register_embedder,
        resolve_embedder,
    )
    from groundkit.extract import Extraction, Extractor, ExtractorIdentity, register_extractor
    from groundkit.identities import bind_analyzer
    from groundkit.index.topk import select_top_k
    from groundkit.manifest import EmbeddingIdentity
    from groundkit.plugins import (
        CliCommand,
        PluginRegistry,
        ShardBuild,
        ShardEngine,
        ShardServe,
        import_extra,
        install_hint,
    )
    from groundkit.retrieval.audit import verify_reader
    from groundkit.retrieval.citations import (
        citation_for,
        citation_root,
        verify_document_citation,
    )
    from groundkit.retrieval.gather import ShardGroup
    from groundkit.retrieval.merge import ShardHit
    from groundkit.retrieval.rerank import Reranker, rerank_by_logits, sigmoid
    from groundkit.retrieval.rerankers import RerankerFactory, register_reranker, resolve_reranker
    from groundkit.retrieval.shard_searcher import ShardSearcher
    from groundkit.retrieval.shard_stats import ShardStatistics
    from groundkit.retrieval.sharded_retriever import ShardedRetriever, sharded_layout
    from groundkit.shards.build import (
        ShardedIngestReport,
        ingest_shard,
        recorded_analyzer,
        seal_shards,
        shard_count,
    )
    from groundkit.shards.corpus import corpus_source, read_jsonl, write_records
    from groundkit.shards.shard_engines import shard_engine
    from groundkit.shards.shard_manifest import MANIFEST_FILE, load_manifest, shard_name, shards_dir
    from groundkit.store.protocols import CollectionReader, TieKey
    from groundkit.store.sqlite.stamp import altered_since_stamp
    from groundkit.vectors import TieKeys, VectorStore, pack_vector, unpack_vector
    from groundkit.vectors.store_registry import VectorStoreLoader, register_vector_store

_HOMES: dict[str, tuple[str, ...]] = {
    # the CLI, for a command a plugin adds (``PluginRegistry.cli_command``)
    "groundkit.cli.exits": ("ExitCode",),
    "groundkit.cli.options": ("Parents", "positive_seconds", "seconds_or_zero"),
    # stored collections: located, opened as read views, audited (the ``serve`` extra)
    "groundkit.collection": ("collection_file", "collection_status", "open_reader"),
    "groundkit.store.protocols": ("CollectionReader", "TieKey"),
    "groundkit.store.sqlite.stamp": ("altered_since_stamp",),
    "groundkit.retrieval.audit": ("verify_reader",),
    "groundkit.retrieval.citations": (
        "citation_for",
        "citation_root",
        "verify_document_citation",
    ),
    "groundkit.contracts": ("SearchResult",),
    # the protocols a plugin implements, their registries and helpers
    "groundkit.embedding.embedder": ("Embedder",),
    "groundkit.embedding.embedder_registry": (
        "EmbedderFactory",
        "register_embedder",
        "resolve_embedder",
    ),
    "groundkit.manifest": ("EmbeddingIdentity",),
    "groundkit.extract": ("Extraction", "Extractor", "ExtractorIdentity", "register_extractor"),
    "groundkit.retrieval.rerank": ("Reranker", "rerank_by_logits", "sigmoid"),
    "groundkit.retrieval.rerankers": ("RerankerFactory", "register_reranker", "resolve_reranker"),
    "groundkit.vectors": ("TieKeys", "VectorStore", "pack_vector", "unpack_vector"),
    "groundkit.vectors.store_registry": ("VectorStoreLoader", "register_vector_store"),
    "groundkit.index.topk": ("select_top_k",),
    # the hook: ``register(registry: PluginRegistry)``; messages that name a pip extra
    "groundkit.plugins": (
        "CliCommand",
        "PluginRegistry",
        "ShardBuild",
        "ShardEngine",
        "ShardServe",
        "import_extra",
        "install_hint",
    ),
    "groundkit.shards.shard_engines": ("shard_engine",),
    # sharded collections: the layout, the build's steps, one shard's searcher (the ``ray`` extra)
    "groundkit.identities": ("bind_analyzer",),
    "groundkit.retrieval.gather": ("ShardGroup",),
    "groundkit.retrieval.merge": ("ShardHit",),
    "groundkit.retrieval.shard_searcher": ("ShardSearcher",),
    "groundkit.retrieval.shard_stats": ("ShardStatistics",),
    "groundkit.retrieval.sharded_retriever": ("ShardedRetriever", "sharded_layout"),
    "groundkit.shards.build": (
        "ShardedIngestReport",
        "ingest_shard",
        "recorded_analyzer",
        "seal_shards",
        "shard_count",
    ),
    "groundkit.shards.corpus": ("corpus_source", "read_jsonl", "write_records"),
    "groundkit.shards.shard_manifest": (
        "MANIFEST_FILE",
        "load_manifest",
        "shard_name",
        "shards_dir",
    ),
}


__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_INDEX_DIR",
    "MANIFEST_FILE",
    "CliCommand",
    "CollectionReader",
    "ConfigurationError",
    "Embedder",
    "EmbedderFactory",
    "EmbeddingIdentity",
    "ExitCode",
    "Extraction",
    "Extractor",
    "ExtractorIdentity",
    "GroundkitError",
    "IndexIdentityError",
    "IngestionError",
    "Parents",
    "PluginRegistry",
    "Reranker",
    "RerankerFactory",
    "RetrievalError",
    "SearchResult",
    "ShardBuild",
    "ShardEngine",
    "ShardGroup",
    "ShardHit",
    "ShardSearcher",
    "ShardServe",
    "ShardStatistics",
    "ShardUnavailableError",
    "ShardedIngestReport",
    "ShardedRetriever",
    "StorageError",
    "TieKey",
    "TieKeys",
    "VectorStore",
    "VectorStoreLoader",
    "altered_since_stamp",
    "bind_analyzer",
    "citation_for",
    "citation_root",
    "collection_file",
    "collection_status",
    "corpus_source",
    "import_extra",
    "ingest_shard",
    "install_hint",
    "lazy_exports",
    "load_manifest",
    "open_reader",
    "pack_vector",
    "positive_seconds",
    "read_jsonl",
    "recorded_analyzer",
    "register_embedder",
    "register_extractor",
    "register_reranker",
    "register_vector_store",
    "rerank_by_logits",
    "resolve_embedder",
    "resolve_reranker",
    "seal_shards",
    "seconds_or_zero",
    "select_top_k",
    "shard_count",
    "shard_engine",
    "shard_name",
    "sharded_layout",
    "shards_dir",
    "sigmoid",
    "unpack_vector",
    "verify_document_citation",
    "verify_reader",
    "write_records",
]


if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
