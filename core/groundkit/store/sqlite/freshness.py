"""Whether a collection file changed, cheaply: what a host asks on every request (adr/0057).

A collection's committed generation is read from its file only when the file has changed: every
request asks whether its collection has a newer generation (adr/0020); opening the
collection for that costs a SQLite connection, about a millisecond, more than a bm25 search.
A commit changes the database file or its write-ahead log, so while both files' inode, size
and modification time are what they were at the last read, the generation is too. A
read is remembered only when the files were last modified well before it (``SETTLED_NS``): a
file system stamps times at a coarse tick, and a commit within the tick of the read could
otherwise leave the same times behind (git's "racily clean" entries). adr/0057.

A file that changed with no new generation (no writer's commit explains it) is checked with
SQLite's ``quick_check`` before it is served again; a file found damaged stays refused until it
changes (adr/0056). Used by ``groundkit.StoredCollection``.
"""

from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path

from groundkit.errors import CorruptCollectionError
from groundkit.file_state import FileState, file_state

__all__ = [
    "GENERATIONS",
    "SETTLED_NS",
    "GenerationCache",
    "quick_check",
    "refuse_damaged",
    "remember_damage",
]

SETTLED_NS = 1_000_000_000
"""How long before a read the files must have last changed for the read to be remembered."""

Signature = tuple[tuple[int, int, int] | None, ...]


def signature(path: Path) -> Signature:
    """The database file's and its write-ahead log's identity, size and modification time
    (None: absent). Not the change time: SQLite touches the log's on every connection."""
    parts: list[tuple[int, int, int] | None] = []
    for name in (path, path.with_name(path.name + "-wal")):
        try:
            info = os.stat(name)
        except FileNotFoundError:
            parts.append(None)
            continue
        parts.append((info.st_ino, info.st_size, info.st_mtime_ns))
    return tuple(parts)


class GenerationCache:
    """Generations per collection file, re-read only when the file's signature changes."""

    def __init__(self) -> None:
        self._known: dict[Path, tuple[Signature, int]] = {}
        self._lock = threading.Lock()

    def generation(self, path: Path, read: Callable[[], int]) -> int:
        """``path``'s generation: remembered, or ``read()`` when its files changed."""
        before = signature(path)
        with self._lock:
            known = self._known.get(path)
        if known is not None and known[0] == before:
            return known[1]
        now = time.time_ns()
        found = read()
        changed = max((part[2] for part in before if part is not None), default=now)
        with self._lock:
            if now - changed >= SETTLED_NS:
                self._known[path] = (before, found)
            else:
                self._known.pop(path, None)
        return found


GENERATIONS = GenerationCache()
"""The process's generations per collection file: a request opens no SQLite connection."""

_DAMAGED: dict[Path, tuple[FileState, CorruptCollectionError]] = {}
"""Files ``quick_check`` found damaged, with their state then: refused until they change."""
_DAMAGED_LOCK = threading.Lock()
_DAMAGED_MAX = 256


def refuse_damaged(path: Path) -> None:
    """Raise the error ``quick_check`` found in ``path`` if the file has not changed since."""
    with _DAMAGED_LOCK:
        damaged = _DAMAGED.get(path)
    if damaged is not None and damaged[0] == file_state(path):
        raise damaged[1]


def quick_check(path: Path, name: str) -> None:
    """SQLite's ``quick_check`` of a file that changed at the same generation (no writer's
    commit explains it): damage in place fails closed here."""
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            rows = [str(row[0]) for row in db.execute("PRAGMA quick_check")]
        finally:
            db.close()
    except (sqlite3.Error, ValueError) as exc:  # ValueError: a damaged schema's text
        rows = [type(exc).__name__]
    if rows != ["ok"]:
        raise CorruptCollectionError(
            f"collection {name!r} ({path}) changed with no new generation and SQLite's "
            f"quick_check finds it damaged ({rows[0][:120]}); it is not served until "
            "`groundkit check` passes (re-ingest, or restore the file)",
            subject=str(path),
        )


def remember_damage(path: Path, error: CorruptCollectionError) -> None:
    """Refuse ``path`` with ``error`` (``refuse_damaged``) until the file changes."""
    with _DAMAGED_LOCK:
        if len(_DAMAGED) >= _DAMAGED_MAX:
            _DAMAGED.clear()
        _DAMAGED[path] = (file_state(path), error)
