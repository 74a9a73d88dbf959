"""groundkit on Ray: sharded collections built on Ray Data and served on Ray Serve.

Install with ``pip install ".[ray]"`` from a clone. Ray is imported when a function here is
called, never at import time; the scoring is ``groundkit.shards``' pure functions, so the
answers are those of one collection over the same corpus (adr/0028).
"""

from __future__ import annotations

from groundkit_ray._ray import import_ray
from groundkit_ray.ray_data_build import build_on_ray, jsonl_to_folder
from groundkit_ray.serve_deployments import (
    RayShards,
    ShardedSearchTool,
    ShardReplica,
    serve_sharded,
)

__all__ = [
    "RayShards",
    "ShardReplica",
    "ShardedSearchTool",
    "build_on_ray",
    "import_ray",
    "jsonl_to_folder",
    "serve_sharded",
]
