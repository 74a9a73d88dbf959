"""A record kept beside a collection file (bm25's bar, the dense floor), read again when the
file changes.

An ingest or ``calibrate --write`` records them anew while searchers stay open (the service,
a notebook): a searcher must not keep applying the bar it read first (adr/0072). Each search
costs one ``stat`` of the record; ``os.replace`` gives a rewritten record a new inode, so a
rewrite within one clock tick is seen too.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from groundkit.file_state import FileState, file_state

__all__ = ["Sidecar"]

T = TypeVar("T")
_UNREAD = object()


class Sidecar(Generic[T]):
    """``read()``'s value, read again whenever the file at ``path`` changes (``path`` None:
    read once, as for a static site's shipped record)."""

    def __init__(self, path: Path | None, read: Callable[[], T]) -> None:
        self._path = path
        self._read = read
        self._held: tuple[FileState, object] = (None, _UNREAD)

    def get(self) -> T:
        # None where the record is missing, or unreadable (which read() then says)
        stamp = None if self._path is None else file_state(self._path)
        held_stamp, value = self._held  # one tuple: a concurrent reader sees a pair that matches
        if value is _UNREAD or held_stamp != stamp:
            value = self._read()
            self._held = (stamp, value)
        return value  # type: ignore[return-value]  # what read() returned
