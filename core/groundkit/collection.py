"""Where collections live: ``<index_dir>/<name>/collection.sqlite``, and opening their stores."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR
from groundkit.errors import ConfigurationError
from groundkit.store.protocols import CollectionReader, CollectionStore

__all__ = [
    "check_collection",
    "collection_file",
    "collection_status",
    "is_sharded",
    "open_reader",
    "open_store",
    "page_archive_dir",
]

_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
FILE_NAME = "collection.sqlite"
PAGE_ARCHIVE = "snapshots"  # the folder's name since adr/0022: kept, collections hold it
MANIFEST_FILE = "shards.json"
"""The file that makes a collection's folder a sharded collection's (adr/0028)."""


def collection_file(
    index_dir: str | Path = DEFAULT_INDEX_DIR, name: str = DEFAULT_COLLECTION
) -> Path:
    """The SQLite file of collection ``name`` under ``index_dir``."""
    if not _NAME.fullmatch(name) or name.endswith("."):
        raise ConfigurationError(
            f"collection name {name!r} is not allowed: use 1-64 letters, digits, '_', '-' or '.',"
            " starting with a letter or digit",
            subject=name,
        )
    return Path(index_dir) / name / FILE_NAME


def page_archive_dir(location: str | Path) -> Path:
    """The page archive: the folder of fetched URLs kept beside the collection file at
    ``location`` (adr/0022)."""
    return Path(location).parent / PAGE_ARCHIVE


def is_sharded(index_dir: str | Path = DEFAULT_INDEX_DIR, name: str = DEFAULT_COLLECTION) -> bool:
    """Whether collection ``name`` is a sharded one (its folder holds ``shards.json``)."""
    return (collection_file(index_dir, name).parent / MANIFEST_FILE).is_file()


def open_store(
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    name: str = DEFAULT_COLLECTION,
    *,
    create: bool = True,
) -> CollectionStore:
    """The writer of a collection (created on first use unless ``create`` is false)."""
    from groundkit.store.sqlite import SqliteStore

    return SqliteStore(collection_file(index_dir, name), create=create)


def open_reader(
    index_dir: str | Path = DEFAULT_INDEX_DIR, name: str = DEFAULT_COLLECTION
) -> CollectionReader:
    """A reader (a read view) of an existing collection."""
    from groundkit.store.sqlite import SqliteReader

    return SqliteReader(collection_file(index_dir, name))


def collection_status(
    index_dir: str | Path = DEFAULT_INDEX_DIR, name: str = DEFAULT_COLLECTION
) -> dict[str, Any]:
    """What a stored collection holds: documents, chunks, identities, generation, size."""
    with open_reader(index_dir, name) as reader:
        status = reader.status()
    status["collection"] = name
    return status


def check_collection(
    index_dir: str | Path = DEFAULT_INDEX_DIR, name: str = DEFAULT_COLLECTION
) -> list[str]:
    """What is wrong with a stored collection's file: SQLite's ``integrity_check``, then the
    agreement of counters, documents, chunks, terms, postings and vectors; [] when sound.

    A file too damaged to open raises ``CorruptCollectionError`` (adr/0023). A sound file
    whose stamp no longer matches it (changed by no writer: a vacuum, a restore) is stamped
    again, so a server that refused it as changed serves it (adr/0056).
    """
    from groundkit.store.sqlite.stamp import altered_since_stamp, write_stamp

    with open_reader(index_dir, name) as reader:
        problems = reader.integrity_problems()
    path = collection_file(index_dir, name)
    if not problems and altered_since_stamp(path):
        write_stamp(path)
    return problems
