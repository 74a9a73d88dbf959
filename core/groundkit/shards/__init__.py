"""Sharded collections: N ordinary collections and a manifest, searched as one.

BM25 statistics are reduced across shards and every shard scores with them, so a sharded
search returns exactly the ranking and scores of one collection over the same corpus
(adr/0028-sharded-collections-on-ray.md). Pure map and reduce functions; engines such as Ray
(``groundkit_ray``) only schedule them. Opening one for search: ``groundkit.Searcher.open``
(one ``Searcher`` over these shards, adr/0063).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.lazy import lazy_exports

if TYPE_CHECKING:
    from groundkit.retrieval.collection_scorer import CollectionScorer
    from groundkit.retrieval.merge import ShardHit, merge_hits
    from groundkit.retrieval.shard_stats import ShardStatistics, map_statistics, reduce_statistics
    from groundkit.retrieval.transport import LocalTransport, Transport
    from groundkit.shards.build import (
        ShardedIngestReport,
        ingest_shard,
        ingest_sharded,
        seal_shards,
    )
    from groundkit.shards.routing import shard_of, shard_selector
    from groundkit.shards.shard_manifest import (
        ShardManifest,
        ShardRecord,
        load_manifest,
        shard_name,
    )

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit.retrieval.collection_scorer": ("CollectionScorer",),
    "groundkit.retrieval.merge": ("ShardHit", "merge_hits"),
    "groundkit.retrieval.shard_stats": ("ShardStatistics", "map_statistics", "reduce_statistics"),
    "groundkit.retrieval.transport": ("LocalTransport", "Transport"),
    "groundkit.shards.build": (
        "ShardedIngestReport",
        "ingest_shard",
        "ingest_sharded",
        "seal_shards",
    ),
    "groundkit.shards.routing": ("shard_of", "shard_selector"),
    "groundkit.shards.shard_manifest": (
        "ShardManifest",
        "ShardRecord",
        "load_manifest",
        "shard_name",
    ),
}

__all__ = [
    "CollectionScorer",
    "LocalTransport",
    "ShardHit",
    "ShardManifest",
    "ShardRecord",
    "ShardStatistics",
    "ShardedIngestReport",
    "Transport",
    "ingest_shard",
    "ingest_sharded",
    "load_manifest",
    "map_statistics",
    "merge_hits",
    "reduce_statistics",
    "seal_shards",
    "shard_name",
    "shard_of",
    "shard_selector",
]


if not TYPE_CHECKING:  # each name imported on first use: a sharded search imports no build
    __getattr__, __dir__ = lazy_exports(__name__, _HOMES, __all__)
