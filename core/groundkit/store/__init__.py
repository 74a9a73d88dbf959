"""Durable collection state behind one protocol: SQLite by default, memory where it is absent."""

from __future__ import annotations

from groundkit.store.memory import MemoryReader, MemoryStore
from groundkit.store.protocols import CollectionReader, CollectionStore, IndexedChunk, TieKey

__all__ = [
    "CollectionReader",
    "CollectionStore",
    "IndexedChunk",
    "MemoryReader",
    "MemoryStore",
    "TieKey",
]
