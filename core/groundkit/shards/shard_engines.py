"""Shard engines by name (``groundkit shard build --engine ray``); ``local`` is the core's own.

Plugins record theirs (the ray extra's ``ray``), loaded the first time an engine is asked for
(adr/0058).
"""

from __future__ import annotations

from groundkit.plugin_registry import Registry
from groundkit.plugins import ShardEngine

__all__ = ["SHARD_ENGINES", "shard_engine"]

SHARD_ENGINES: Registry[ShardEngine] = Registry("shard-engine")


def shard_engine(name: str) -> ShardEngine:
    """The shard engine called ``name`` (``ConfigurationError`` naming the extra if none)."""
    return SHARD_ENGINES.get(name)
