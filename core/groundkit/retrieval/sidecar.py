"""A record kept beside a collection file (bm25's bar, the dense floor), read again when the
file changes.

An ingest or ``calibrate --write`` records them anew while searchers stay open (the service,
a notebook): a searcher must not keep applying the bar it read first (adr/0072). Each search
costs one ``stat`` of the record; ``os.replace`` gives a rewritten record a new inode, so a
rewrite within one clock tick is seen too.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

__all__ = ["Sidecar"]

T = TypeVar("T")
_UNREAD = object()


def _stamp(path: Path | None) -> tuple[int, int, int] | None:
    """The file's inode, size and modification time; None where there is none."""
    if path is None:
        return None
    try:
        found = os.stat(path)
    except OSError:  # missing (or unreadable: read() says which)
        return None
    return found.st_ino, found.st_size, found.st_mtime_ns


class Sidecar(Generic[T]):
    """``read()``'s value, read again whenever the file at ``path`` changes (``path`` None:
    read once, as for a static site's shipped record)."""

    def __init__(self, path: Path | None, read: Callable[[], T]) -> None:
        self._path = path
        self._read = read
        self._held: tuple[tuple[int, int, int] | None, object] = (None, _UNREAD)

    def get(self) -> T:
        stamp = _stamp(self._path)
        held_stamp, value = self._held  # one tuple: a concurrent reader sees a pair that matches
        if value is _UNREAD or held_stamp != stamp:
            value = self._read()
            self._held = (stamp, value)
        return value  # type: ignore[return-value]  # what read() returned
