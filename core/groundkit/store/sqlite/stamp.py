"""A stamp of a collection file as its last writer left it, so the next writer can skip
SQLite's ``integrity_check`` when the file is byte-identical to it (adr/0030-ingest-speed.md).

The stamp (``<file>-sound``: size, modification time, BLAKE2b of the bytes) is written after a
writer closes the file with no write-ahead log frames left, and removed when a writer opens
it. A file that differs from its stamp in any byte, or whose write-ahead log holds frames (a
reader kept it open, a process was killed), gets the full check as before. Hashing reads the
file once, at memory speed; ``integrity_check`` costs 6-9 s at 100k chunks (adr/0023).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import threading
from pathlib import Path

__all__ = ["STAMP_SUFFIX", "altered_since_stamp", "drop_stamp", "matches_stamp", "write_stamp"]

STAMP_SUFFIX = "-sound"
_BLOCK = 1 << 20


def _stamp(path: Path) -> Path:
    return Path(f"{path}{STAMP_SUFFIX}")


def _digest(path: Path) -> str:
    digest = hashlib.blake2b(digest_size=32)
    with open(path, "rb") as handle:
        while block := handle.read(_BLOCK):
            digest.update(block)
    return digest.hexdigest()


def _wal_frames(path: Path) -> bool:
    """Whether ``path``'s write-ahead log holds anything (its content is then the file's too)."""
    try:
        return os.stat(f"{path}-wal").st_size > 0
    except FileNotFoundError:
        return False


def matches_stamp(path: Path) -> bool:
    """Whether ``path`` is byte-identical to its stamp, with an empty write-ahead log."""
    try:
        recorded = json.loads(_stamp(path).read_text("utf-8"))
        info = os.stat(path)
        if _wal_frames(path) or [recorded["size"], recorded["mtime_ns"]] != [
            info.st_size,
            info.st_mtime_ns,
        ]:
            return False
        return bool(_digest(path) == recorded["blake2b"]) and not _wal_frames(path)
    except (OSError, ValueError, KeyError, TypeError):
        return False


_SEEN: dict[tuple[str, int, int, int, int, str], bool] = {}
"""Verdicts of files whose modification time differs from their stamp, by file identity and
stat: such a file is hashed once, not on every request."""
_SEEN_MAX = 256
_SEEN_LOCK = threading.Lock()


def altered_since_stamp(path: Path) -> bool:
    """Whether ``path`` changed since its last writer stamped it, with no writer since (a
    writer drops the stamp first). Same size and modification time: unchanged, from two
    ``stat`` calls, cheap enough for every request of a server (adr/0040). Another
    modification time at the same size (``cp -r``, a restored backup) is settled by the bytes:
    hashed once per file and time, a byte-identical copy is not altered (adr/0056)."""
    try:
        text = _stamp(path).read_text("utf-8")
        recorded = json.loads(text)
        info = os.stat(path)
        if recorded["size"] != info.st_size:
            return True
        if recorded["mtime_ns"] == info.st_mtime_ns:
            return False
        key = (str(path), info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, text)
        with _SEEN_LOCK:
            seen = _SEEN.get(key)
        if seen is None:
            seen = _wal_frames(path) or _digest(path) != recorded["blake2b"]
            with _SEEN_LOCK:
                if len(_SEEN) >= _SEEN_MAX:
                    _SEEN.clear()
                _SEEN[key] = seen
        return seen
    except (OSError, ValueError, KeyError, TypeError):
        return False  # no stamp (a writer is at work, or none was left): nothing to compare


def drop_stamp(path: Path) -> None:
    """Remove the stamp (a writer is about to change the file); best effort."""
    with contextlib.suppress(OSError):
        _stamp(path).unlink(missing_ok=True)


def write_stamp(path: Path) -> None:
    """Stamp ``path`` after its writer closed it; no stamp where its write-ahead log still
    holds frames or the file changed while it was hashed. Best effort: no stamp, full check."""
    try:
        before = os.stat(path)
        if _wal_frames(path):
            return
        digest = _digest(path)
        after = os.stat(path)
        if (before.st_size, before.st_mtime_ns) != (after.st_size, after.st_mtime_ns):
            return
        if _wal_frames(path):
            return
        record = {"size": after.st_size, "mtime_ns": after.st_mtime_ns, "blake2b": digest}
        partial = Path(f"{_stamp(path)}.{os.getpid()}.tmp")
        partial.write_text(json.dumps(record), "utf-8")
        os.replace(partial, _stamp(path))
    except OSError:
        return
