"""The ray extra's plugin: the shard engine ``ray`` (build on Ray Data, serve on Ray Serve).

The entry point ``ray`` of the group ``groundkit.plugins`` (adr/0053): ``groundkit shard build
--engine ray`` and ``groundkit serve --ray-collection``. Registering imports nothing; Ray and
this package's modules are imported when a build or a deployment starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from groundkit.extend import ShardEngine

if TYPE_CHECKING:
    from groundkit import Reranker, Searcher
    from groundkit.extend import PluginRegistry, ShardedIngestReport

__all__ = ["register"]


def _build(  # noqa: PLR0913  ShardBuild's signature, as the SPI states it
    source: str | Path,
    *,
    collection: str,
    shards: int | None,
    index_dir: str | Path,
    workers: int,
    embedder: str | None,
    vector_store: str | None,
    corpus_dir: str | Path | None,
    address: str | None,
    calibrate: bool,
) -> ShardedIngestReport:
    from groundkit_ray.ray_data_build import build_on_ray

    return build_on_ray(
        source,
        collection=collection,
        shards=shards,
        index_dir=index_dir,
        workers=workers,
        embedder=embedder,
        vector_store=vector_store,
        corpus_dir=corpus_dir,
        address=address,
        calibrate=calibrate,
    )


def _serve(
    collection: str,
    *,
    index_dir: str | Path,
    replicas: int,
    address: str | None,
    reranker: Reranker | None,
) -> Searcher:
    from groundkit_ray.serve_deployments import serve_sharded

    return serve_sharded(
        collection, index_dir=index_dir, replicas=replicas, address=address, reranker=reranker
    )


def register(registry: PluginRegistry) -> None:
    """Add the shard engine ``ray`` to ``registry``."""
    registry.shard_engine("ray", ShardEngine(build=_build, serve=_serve))
