"""A collection's committed generation, read from its file only when the file has changed.

Every request asks whether its collection has a newer generation (adr/0020); opening the
collection for that costs a SQLite connection, about a millisecond, more than a bm25 search.
A commit changes the database file or its write-ahead log, so while both files' inode, size
and modification time are what they were at the last read, the generation is too. A
read is remembered only when the files were last modified well before it (``SETTLED_NS``): a
file system stamps times at a coarse tick, and a commit within the tick of the read could
otherwise leave the same times behind (git's "racily clean" entries). adr/0057.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

__all__ = ["SETTLED_NS", "GenerationCache"]

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
