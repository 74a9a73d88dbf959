"""Reading a source file safely: inside its base directory, bounded in size, strict UTF-8.

Both ingest and citation verification read through here, so a citation is re-checked under
exactly the rules its text was first read with.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from groundkit.errors import IngestionError

__all__ = ["contained_path", "read_text", "relative_source"]


def contained_path(root: Path, source: str) -> Path:
    """``root/source`` after resolving symlinks, refused unless it stays inside ``root``."""
    base = root.resolve()
    try:
        candidate = (base / source).resolve()
    except (OSError, RuntimeError) as exc:  # RuntimeError: a symlink loop (Python < 3.13)
        if isinstance(exc, RuntimeError) or getattr(exc, "errno", None) == errno.ELOOP:
            raise _loop(source) from None
        raise IngestionError(
            f"{source}: cannot be resolved ({exc}); check the path and its links",
            subject=source,
            reason="unreadable",
        ) from None
    if candidate != base and not candidate.is_relative_to(base):
        raise IngestionError(
            f"{source}: resolves to {candidate}, outside the base directory {base}; "
            "only files inside the ingested directory are read",
            subject=source,
            reason="path_escape",
        )
    return candidate


def read_text(path: Path, *, name: str, max_bytes: int) -> str:
    """Decode ``path`` as UTF-8, refusing oversized, non-regular, NUL-holding or invalid files.

    ``name`` is how the file is named in messages (its source path, not the full path).
    """
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise IngestionError(f"{name}: not a regular file", subject=name, reason="not_a_file")
        if info.st_size > max_bytes:
            raise _too_large(name, info.st_size, max_bytes)
        with open(path, "rb") as handle:
            data = handle.read(max_bytes + 1)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # where resolve() let the loop through (Pyodide)
            raise _loop(name) from None
        raise IngestionError(
            f"{name}: cannot be read ({exc.strerror or exc}); check that it exists and is readable",
            subject=name,
            reason="unreadable",
        ) from exc
    if len(data) > max_bytes:  # grew after stat
        raise _too_large(name, len(data), max_bytes)
    nul = data.find(b"\0")
    if nul != -1:
        raise IngestionError(
            f"{name}: holds a NUL byte at byte {nul}, so it is binary, not text; remove it or "
            "exclude the file",
            subject=name,
            reason="nul_byte",
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise IngestionError(
            f"{name}: is not valid UTF-8 (byte {exc.start}: {exc.reason}); convert it to UTF-8, "
            "for example with iconv",
            subject=name,
            reason="not_utf8",
        ) from None


def _loop(name: str) -> IngestionError:
    return IngestionError(
        f"{name}: is a symlink loop (its links lead back to themselves); remove or fix the link",
        subject=name,
        reason="symlink_loop",
    )


def _too_large(name: str, size: int, limit: int) -> IngestionError:
    return IngestionError(
        f"{name}: is {size} bytes, over the {limit}-byte limit; raise the limit "
        "(--max-file-bytes) or split the file; it was not truncated",
        subject=name,
        reason="too_large",
    )


def relative_source(root: Path, path: Path) -> str:
    """``path`` relative to ``root`` as a POSIX string (the stored ``source``)."""
    return Path(os.path.relpath(path, root)).as_posix()
