"""The extension door: what a plugin implements or receives, in one import (adr/0053, adr/0058).

A plugin is a distribution that declares an entry point in the group ``groundkit.plugins``
whose target is ``register(registry: PluginRegistry) -> None``; through that one hook it
records embedders, vector stores, rerankers, extractors (file formats), CLI commands and shard
engines, and groundkit loads it the first time a name it does not know is asked for. Here are
the hook's types, the protocols a plugin implements and the values they receive (a shard
engine's too: the ``ShardPlan`` it schedules, the ``Transport`` it implements and each ``Step``
it carries), the registry's error and the helpers for its messages: at most 30 names, held by
``tests/core/test_plugins.py``. A name ``groundkit`` exports (the other errors; a host's
``StoredCollection``) is imported from there. Extras import ``groundkit`` and this module only,
a rule ``tox -e lint`` and ``tests/core/test_extras_door.py`` hold (adr/0067).

Like ``groundkit``, this module only re-exports, each name imported on first use (adr/0047).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.errors import ConfigurationError
from groundkit.lazy import lazy_exports

if TYPE_CHECKING:
    from groundkit.cli.exits import ExitCode
    from groundkit.cli.options import Parents
    from groundkit.contracts import SearchResult
    from groundkit.embedding.embedder import Embedder
    from groundkit.embedding.embedder_registry import EmbedderFactory
    from groundkit.extract import Extraction, Extractor, ExtractorIdentity
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
    from groundkit.retrieval.rerank import Reranker, rerank_by_logits
    from groundkit.retrieval.rerankers import RerankerFactory
    from groundkit.retrieval.steps import Step
    from groundkit.retrieval.transport import Transport
    from groundkit.shards.build import ShardedIngestReport, ShardPlan
    from groundkit.shards.shard_engines import shard_engine
    from groundkit.store.protocols import CollectionReader
    from groundkit.vectors import TieKeys, VectorStore
    from groundkit.vectors.store_registry import VectorStoreLoader

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit.cli.exits": ("ExitCode",),
    "groundkit.cli.options": ("Parents",),
    "groundkit.contracts": ("SearchResult",),
    "groundkit.embedding.embedder": ("Embedder",),
    "groundkit.embedding.embedder_registry": ("EmbedderFactory",),
    "groundkit.extract": ("Extraction", "Extractor", "ExtractorIdentity"),
    "groundkit.index.topk": ("select_top_k",),
    "groundkit.manifest": ("EmbeddingIdentity",),
    "groundkit.plugins": (
        "CliCommand",
        "PluginRegistry",
        "ShardBuild",
        "ShardEngine",
        "ShardServe",
        "import_extra",
        "install_hint",
    ),
    "groundkit.retrieval.rerank": ("Reranker", "rerank_by_logits"),
    "groundkit.retrieval.rerankers": ("RerankerFactory",),
    "groundkit.retrieval.steps": ("Step",),
    "groundkit.retrieval.transport": ("Transport",),
    "groundkit.shards.build": ("ShardPlan", "ShardedIngestReport"),
    "groundkit.shards.shard_engines": ("shard_engine",),
    "groundkit.store.protocols": ("CollectionReader",),
    "groundkit.vectors": ("TieKeys", "VectorStore"),
    "groundkit.vectors.store_registry": ("VectorStoreLoader",),
}

__all__ = [
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
    "Parents",
    "PluginRegistry",
    "Reranker",
    "RerankerFactory",
    "SearchResult",
    "ShardBuild",
    "ShardEngine",
    "ShardPlan",
    "ShardServe",
    "ShardedIngestReport",
    "Step",
    "TieKeys",
    "Transport",
    "VectorStore",
    "VectorStoreLoader",
    "import_extra",
    "install_hint",
    "rerank_by_logits",
    "select_top_k",
    "shard_engine",
]


if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
