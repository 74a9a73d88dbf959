"""groundkit on Ray: sharded collections built on Ray Data and served on Ray Serve.

Install with ``pip install ".[ray]"`` from a clone. Ray is imported when a function here is
called, never at import time; the scoring is ``groundkit.shards``' pure functions, so the
answers are those of one collection over the same corpus (adr/0028). The core reaches it
through its plugin (``groundkit_ray.ray_plugin``: the shard engine ``ray``), so each name here is
imported on first use (adr/0053).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

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

    def __getattr__(name: str) -> object:
        """``name`` imported from its module on first use, then kept here (adr/0047)."""
        home = next((m for m, names in _HOMES.items() if name in names), None)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = globals()[name] = getattr(import_module(home), name)
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
