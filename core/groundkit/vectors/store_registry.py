"""Vector stores by name: ``exact`` (the core's) and the ones native extras provide.

A store is *derived* state: the collection's SQLite ``vectors`` table stays the source of truth
(adr/0009), and a store is loaded (or refreshed) from a reader's read view. ``usearch`` comes
from the native extra's plugin, loaded the first time a name not registered is asked for
(adr/0053); a missing extra is an error naming its ``pip install`` (adr/0012). The store a
collection was last ingested with is recorded beside its file (``vector-store.json``), so a
plain search uses it; ``exact`` can always be asked for instead.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity
from groundkit.plugin_registry import Registry
from groundkit.plugins import well_known
from groundkit.store.protocols import CollectionReader
from groundkit.vectors.loading import load_vectors
from groundkit.vectors.vector_store import VectorStore

__all__ = [
    "RECORD_FILE",
    "VECTOR_STORES",
    "VectorStoreLoader",
    "available_vector_stores",
    "load_vector_store",
    "record_vector_store",
    "recorded_vector_store",
    "refresh_vector_store",
    "register_vector_store",
    "vector_store_named",
]

VectorStoreLoader = Callable[[CollectionReader, EmbeddingIdentity, str], VectorStore]
"""(a reader, its embedding manifest, its location) -> a store holding its vectors."""

RECORD_FILE = "vector-store.json"


def _exact(reader: CollectionReader, identity: EmbeddingIdentity, location: str) -> VectorStore:
    return load_vectors(reader, identity, location=location)


VECTOR_STORES: Registry[VectorStoreLoader] = Registry("vector-store", {"exact": _exact})


def register_vector_store(name: str, loader: VectorStoreLoader) -> None:
    """Make ``name`` usable as ``--vector-store NAME``."""
    VECTOR_STORES.add(name, loader)


def available_vector_stores() -> tuple[str, ...]:
    """Registered names and those groundkit's extras provide (loaded on use), sorted."""
    return tuple(sorted(set(VECTOR_STORES.names()) | set(well_known("vector-store"))))


def _loader(name: str) -> VectorStoreLoader:
    return VECTOR_STORES.get(name)


def vector_store_named(name: str) -> str:
    """``name``, if a store of that name is registered or a plugin provides it (else refused)."""
    _loader(name)
    return name


def load_vector_store(
    name: str, reader: CollectionReader, identity: EmbeddingIdentity, *, location: str
) -> VectorStore:
    """The ``name`` store over every vector of ``reader``'s read view."""
    return _loader(name)(reader, identity, location)


def _record_path(location: str) -> Path | None:
    path = Path(location)
    return path.parent / RECORD_FILE if path.is_file() else None


def recorded_vector_store(location: str) -> str | None:
    """The store recorded beside the collection file ``location`` (None: the exact one)."""
    record = _record_path(location)
    if record is None:
        return None
    try:
        raw = json.loads(record.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, ValueError) as exc:
        raise ConfigurationError(
            f"{record} is unreadable ({exc}); delete it to search with the exact store",
            subject=str(record),
        ) from None
    name = raw.get("vector_store") if isinstance(raw, dict) else None
    if not isinstance(name, str):
        raise ConfigurationError(
            f"{record} names no vector store; delete it to search with the exact store",
            subject=str(record),
        )
    return None if name == "exact" else name


def record_vector_store(location: str, name: str) -> None:
    """Record ``name`` as the store later searches of this collection use by default."""
    _loader(name)  # an unknown or uninstalled store is refused before anything is written
    record = _record_path(location)
    if record is None:
        return
    temporary = record.with_suffix(".tmp")
    temporary.write_text(json.dumps({"vector_store": name}) + "\n", encoding="utf-8")
    os.replace(temporary, record)


def refresh_vector_store(
    reader: CollectionReader, name: str | None = None, *, location: str
) -> str | None:
    """Bring the store ``name`` (default: the recorded one) up to ``reader``'s read view.

    Derived stores (``usearch``) are refreshed from the SQLite vectors and saved beside the
    collection; ``name`` is then recorded as the default for searches. Returns the store used,
    None when there is nothing to do (no embedding, or the exact store).
    """
    chosen = name or recorded_vector_store(location)
    identity = reader.embedding_identity
    if chosen is None:
        return None
    if identity is None:
        raise ConfigurationError(
            f"vector store {chosen!r} needs vectors, and collection {location} has none; ingest "
            "into a new collection with --embedder NAME",
            subject=location,
        )
    load_vector_store(chosen, reader, identity, location=location)
    record_vector_store(location, chosen)
    return chosen
