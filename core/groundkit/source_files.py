"""Reading a source file safely: inside its base directory, bounded in size, strict UTF-8.

Both ingest and citation verification read through here, so a citation is re-checked under
exactly the rules its text was first read with. The file read is the file that passed the
containment check: its resolved path is opened one component at a time from the base
directory with ``O_NOFOLLOW``, so a file or folder swapped for a symlink after the check is
refused rather than followed (adr/0021-extractor-identity.md). A path of plain names with no
link on its way needs no check: opened so, it cannot leave the base
(adr/0038-ingest-speed-third-pass.md).
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Sequence
from pathlib import Path

from groundkit.errors import IngestionError

__all__ = [
    "check_text",
    "contained_path",
    "decode_text",
    "read_bytes",
    "read_text",
    "relative_source",
]

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_NONBLOCK", 0)  # a FIFO is opened (then refused by fstat), never waited on
    | getattr(os, "O_BINARY", 0)  # Windows: no newline translation
)
_WALK = bool(_NOFOLLOW and _DIRECTORY and os.open in os.supports_dir_fd)
"""Open component by component (POSIX); elsewhere open and compare the descriptor's identity."""
_LINK_ERRORS = (errno.ELOOP, errno.ENOTDIR, errno.EMLINK)  # what O_NOFOLLOW meets at a link


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


def read_bytes(root: str | Path, source: str, *, max_bytes: int) -> bytes:
    """The bytes of ``root/source``, refusing escapes, non-regular and oversized files.

    ``source`` is how the file is named in messages. The containment check and the read are
    tied together: what is read is the checked file, or nothing. A source of plain names with
    no link on its way is opened as it is, name by name (``_open_plain``); any other is
    resolved first, and its resolved path opened so.
    """
    try:
        fd = _open_plain(root, source)
        if fd is None:
            base = Path(root).resolve()
            fd = _open_checked(base, contained_path(base, source), source)
        try:
            info = os.fstat(fd)
            if not stat.S_ISREG(info.st_mode):
                raise IngestionError(
                    f"{source}: not a regular file", subject=source, reason="not_a_file"
                )
            if info.st_size > max_bytes:
                raise _too_large(source, info.st_size, max_bytes)
            data = _read_up_to(fd, max_bytes + 1, info.st_size)
        finally:
            os.close(fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # where resolve() let the loop through (Pyodide)
            raise _loop(source) from None
        raise IngestionError(
            f"{source}: cannot be read ({exc.strerror or exc}); check that it exists and is "
            "readable",
            subject=source,
            reason="unreadable",
        ) from exc
    if len(data) > max_bytes:  # grew after fstat
        raise _too_large(source, len(data), max_bytes)
    return data


def _read_up_to(fd: int, limit: int, size: int) -> bytes:
    """Up to ``limit`` bytes of ``fd``, to its end: read in pieces of its ``size`` (plus one),
    not into a buffer of ``limit`` bytes (a file a few kB long under a limit of megabytes
    would cost the whole limit's allocation)."""
    pieces: list[bytes] = []
    step = size + 1
    while limit > 0:
        piece = os.read(fd, min(limit, step))
        if not piece:
            break
        pieces.append(piece)
        limit -= len(piece)
        step = max(step, 1 << 16)  # it grew since fstat: read on in larger pieces
    return pieces[0] if len(pieces) == 1 else b"".join(pieces)


def read_text(root: str | Path, source: str, *, max_bytes: int) -> str:
    """``read_bytes`` decoded by ``decode_text``: the text of a ``text`` source."""
    return decode_text(read_bytes(root, source, max_bytes=max_bytes), name=source)


def check_text(text: str, *, name: str, max_bytes: int) -> str:
    """An in-memory ``text`` held to a text file's rules: encodable as UTF-8 (no lone
    surrogate), at most ``max_bytes`` encoded, no NUL; returns it."""
    try:
        data = text.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise IngestionError(
            f"{name}: is not valid UTF-8 (code point {exc.start}: {exc.reason}); convert it to "
            "UTF-8",
            subject=name,
            reason="not_utf8",
        ) from None
    if len(data) > max_bytes:
        raise _too_large(name, len(data), max_bytes)
    return decode_text(data, name=name)


def decode_text(data: bytes, *, name: str) -> str:
    """Strict UTF-8 without NUL bytes (a NUL means a binary file)."""
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


def _open_plain(root: str | Path, source: str) -> int | None:
    """A read descriptor of ``root/source`` where ``source`` is plain names (no ``.``, ``..``
    or empty part) and none of them is a link; else None, and the caller resolves the path.

    Walking down from ``root`` name by name without following a link cannot leave it, so
    this needs no ``resolve`` (three path walks a file, most of a small file's read time);
    a link anywhere, or any error, leaves the decision to the resolving path."""
    parts = source.split("/")
    if not _WALK or "" in parts or "." in parts or ".." in parts:
        return None
    try:
        return _walk_open(root, parts)
    except (OSError, ValueError):  # ValueError: a NUL in the name
        return None


def _walk_open(base: str | Path, parts: Sequence[str]) -> int:
    """``base/parts...`` opened from ``base`` one component at a time, following no link."""
    folder = os.open(base, _FLAGS | _DIRECTORY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, _FLAGS | _DIRECTORY | _NOFOLLOW, dir_fd=folder)
            os.close(folder)
            folder = inner
        return os.open(parts[-1], _FLAGS | _NOFOLLOW, dir_fd=folder)
    finally:
        os.close(folder)


def _open_checked(base: Path, real: Path, source: str) -> int:
    """A read descriptor of ``real`` (resolved, inside ``base``) that cannot have escaped."""
    parts = real.relative_to(base).parts
    if not parts:
        raise IngestionError(f"{source}: not a regular file", subject=source, reason="not_a_file")
    if not _WALK:  # no dir_fd: open, then check the descriptor is still the resolved file
        try:
            fd = os.open(real, _FLAGS | _NOFOLLOW)
        except OSError as exc:
            if exc.errno in _LINK_ERRORS:
                raise _loop(source) if _is_loop(real) else _swapped(source) from None
            raise
        try:
            again = contained_path(base, source)
            opened, there = os.fstat(fd), os.stat(again)
        except BaseException:
            os.close(fd)
            raise
        if again != real or (opened.st_dev, opened.st_ino) != (there.st_dev, there.st_ino):
            os.close(fd)
            raise _swapped(source)
        return fd
    try:
        return _walk_open(base, parts)
    except OSError as exc:
        if exc.errno in _LINK_ERRORS:
            raise _loop(source) if _is_loop(real) else _swapped(source) from None
        raise


def _is_loop(path: Path) -> bool:
    """Whether following ``path`` loops (a link that resolve() let through, as in Pyodide)."""
    try:
        os.stat(path)
    except OSError as exc:
        return exc.errno == errno.ELOOP
    return False


def _swapped(source: str) -> IngestionError:
    return IngestionError(
        f"{source}: changed into a symbolic link (or a path through one) between the "
        "containment check and the read; it was not read",
        subject=source,
        reason="path_escape",
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
