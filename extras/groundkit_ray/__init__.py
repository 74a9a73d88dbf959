"""groundkit on Ray: sharded collections built on Ray Data and served on Ray Serve.

Install with ``pip install ".[ray]"`` from a clone. Ray is imported when a function here is
called, never at import time; the scoring is ``groundkit.shards``' pure functions, so the
answers are those of one collection over the same corpus (adr/0028). The core reaches it
through its plugin (``groundkit_ray.ray_plugin``: the shard engine ``ray``), so each name here is
imported on first use (adr/0053).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.hosting import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from groundkit_ray._ray import import_ray
    from groundkit_ray.ray_data_build import build_on_ray, jsonl_to_folder
    from groundkit_ray.serve_deployments import RayTransport, ShardReplica, serve_sharded

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit_ray._ray": ("import_ray",),
    "groundkit_ray.ray_data_build": ("build_on_ray", "jsonl_to_folder"),
    "groundkit_ray.serve_deployments": ("RayTransport", "ShardReplica", "serve_sharded"),
}


__all__ = [
    "RayTransport",
    "ShardReplica",
    "build_on_ray",
    "import_ray",
    "jsonl_to_folder",
    "serve_sharded",
]


if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name
    __getattr__, __dir__ = _lazy_exports(__name__, _HOMES, __all__)
