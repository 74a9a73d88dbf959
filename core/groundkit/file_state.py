"""A file's state as ``stat`` gives it: what tells a reader that the file changed since it
last looked (a collection file, a record kept beside it), at the cost of one ``stat``."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["FileState", "file_state"]

FileState = tuple[int, int, int, int] | None
"""A file's device, inode, size and modification time (None: absent or unreadable)."""


def file_state(path: Path) -> FileState:
    """``path``'s device, inode, size and modification time; None if it cannot be read."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
