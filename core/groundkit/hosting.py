"""What a host of stored collections needs: the service (``groundkit_serve``) and a shard engine
(``groundkit_ray``); public API (adr/0058, adr/0063).

Opening a collection or a sharded collection by name is ``groundkit.Searcher.open``; here:
locating them (``collection_file``, ``is_sharded``, ``load_manifest``, ``shards_dir``,
``shard_name``, ``MANIFEST_FILE``, ``open_reader``), their status and audit
(``collection_status``, ``verify_reader``, ``verify_document_citation``, ``citation_for``,
``altered_since_stamp``), what serves a shard elsewhere (``CollectionScorer``, the scorer a
replica holds; ``Step``, the calls it answers; ``sharded_searcher``, the one ``Searcher`` over
any ``Transport``), the steps of a sharded build an engine schedules (``ingest_shard``,
``seal_shards``, ``shard_count``, ``corpus_source``, ``read_jsonl``, ``write_records``,
``recorded_analyzer``), and lookups by name (``resolve_embedder``, ``resolve_reranker``,
``shard_engine``). What a plugin implements is in ``groundkit.extend``.

This module only re-exports, each name imported on first use (adr/0047).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.lazy import lazy_exports

if TYPE_CHECKING:
    from groundkit.cli.options import positive_seconds, seconds_or_zero
    from groundkit.collection import (
        MANIFEST_FILE,
        collection_file,
        collection_status,
        is_sharded,
        open_reader,
    )
    from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR
    from groundkit.embedding.embedder_registry import resolve_embedder
    from groundkit.errors import ShardUnavailableError
    from groundkit.retrieval.audit import verify_reader
    from groundkit.retrieval.citations import citation_for, verify_document_citation
    from groundkit.retrieval.collection_scorer import CollectionScorer
    from groundkit.retrieval.rerankers import resolve_reranker
    from groundkit.retrieval.searcher import sharded_searcher
    from groundkit.retrieval.steps import Step
    from groundkit.retrieval.transport import Transport
    from groundkit.shards.build import (
        ShardedIngestReport,
        ingest_shard,
        recorded_analyzer,
        seal_shards,
        shard_count,
    )
    from groundkit.shards.corpus import corpus_source, read_jsonl, write_records
    from groundkit.shards.shard_engines import shard_engine
    from groundkit.shards.shard_manifest import load_manifest, shard_name, shards_dir
    from groundkit.store.sqlite.stamp import altered_since_stamp

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit.cli.options": ("positive_seconds", "seconds_or_zero"),
    "groundkit.collection": (
        "MANIFEST_FILE",
        "collection_file",
        "collection_status",
        "is_sharded",
        "open_reader",
    ),
    "groundkit.config": ("DEFAULT_COLLECTION", "DEFAULT_INDEX_DIR"),
    "groundkit.embedding.embedder_registry": ("resolve_embedder",),
    "groundkit.errors": ("ShardUnavailableError",),
    "groundkit.retrieval.audit": ("verify_reader",),
    "groundkit.retrieval.citations": ("citation_for", "verify_document_citation"),
    "groundkit.retrieval.collection_scorer": ("CollectionScorer",),
    "groundkit.retrieval.rerankers": ("resolve_reranker",),
    "groundkit.retrieval.searcher": ("sharded_searcher",),
    "groundkit.retrieval.steps": ("Step",),
    "groundkit.retrieval.transport": ("Transport",),
    "groundkit.shards.build": (
        "ShardedIngestReport",
        "ingest_shard",
        "recorded_analyzer",
        "seal_shards",
        "shard_count",
    ),
    "groundkit.shards.corpus": ("corpus_source", "read_jsonl", "write_records"),
    "groundkit.shards.shard_engines": ("shard_engine",),
    "groundkit.shards.shard_manifest": ("load_manifest", "shard_name", "shards_dir"),
    "groundkit.store.sqlite.stamp": ("altered_since_stamp",),
}

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_INDEX_DIR",
    "MANIFEST_FILE",
    "CollectionScorer",
    "ShardUnavailableError",
    "ShardedIngestReport",
    "Step",
    "Transport",
    "altered_since_stamp",
    "citation_for",
    "collection_file",
    "collection_status",
    "corpus_source",
    "ingest_shard",
    "is_sharded",
    "lazy_exports",
    "load_manifest",
    "open_reader",
    "positive_seconds",
    "read_jsonl",
    "recorded_analyzer",
    "resolve_embedder",
    "resolve_reranker",
    "seal_shards",
    "seconds_or_zero",
    "shard_count",
    "shard_engine",
    "shard_name",
    "sharded_searcher",
    "shards_dir",
    "verify_document_citation",
    "verify_reader",
    "write_records",
]


if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
