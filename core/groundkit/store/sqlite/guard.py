"""SQLite's own errors, as groundkit's: a damaged file, a read-only one, a busy one.

Every public method of the reader and the writer runs under ``guard_methods``, so no
``sqlite3`` exception (and no stored text inside one) reaches a caller. See adr/0023.
"""

from __future__ import annotations

import contextlib
import functools
import inspect
import os
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar

from groundkit.errors import CorruptCollectionError, ReadOnlyCollectionError, StorageError

__all__ = ["corrupt", "guard_methods", "storage_error"]

T = TypeVar("T")

_DAMAGED_HINT = (
    "it was not used or written: `groundkit check` lists what is wrong; rebuild it by "
    "ingesting into a new collection, or restore a copy"
)


def corrupt(path: Path | str, what: str) -> CorruptCollectionError:
    """The error for a damaged collection file: ``what`` says what disagreed (no stored text)."""
    return CorruptCollectionError(
        f"collection {path} is damaged ({what}); {_DAMAGED_HINT}", subject=str(path)
    )


def read_only(path: Path | str, why: str) -> ReadOnlyCollectionError:
    return ReadOnlyCollectionError(
        f"collection {path} is read-only ({why}); it can be searched and verified but not "
        "written: give the file and its folder write permission, or ingest into another "
        "--index-dir",
        subject=str(path),
    )


def prepare_writable(path: Path) -> None:
    """Create the collection's folder and refuse, before opening, a file or folder this process
    cannot write; a folder that cannot be made (its name is a file's, its parent read-only) is
    a ``StorageError`` naming it, never an ``OSError``."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        blocking = next((p for p in (path.parent, *path.parent.parents) if p.is_file()), None)
        why = (
            f"{blocking} is a file, not a folder: pass --index-dir a folder"
            if blocking is not None
            else f"{exc.strerror or exc}: choose an --index-dir this user can write"
        )
        raise StorageError(
            f"cannot create the collection folder {path.parent} ({why})", subject=str(path.parent)
        ) from None
    if path.exists() and not os.access(path, os.W_OK):
        raise read_only(path, "the file is not writable")
    if not os.access(path.parent, os.W_OK):
        raise read_only(path, f"its folder {path.parent} is not writable")


def storage_error(exc: sqlite3.Error, path: Path | str) -> StorageError:
    """The groundkit error for an ``sqlite3`` error raised on collection ``path``."""
    text = str(exc)
    lowered = text.lower()
    if "readonly" in lowered or "read-only" in lowered:
        return read_only(path, "SQLite refused a write: " + text)
    if "locked" in lowered or "busy" in lowered:
        return StorageError(
            f"collection {path} is busy ({text}): another process holds it longer than the "
            "busy timeout; try again when it has finished",
            subject=str(path),
        )
    if "unable to open" in lowered:
        return StorageError(
            f"cannot open collection file {path} ({text}); check that it and its folder exist "
            "and are readable (a read-only folder needs the file closed cleanly, without a "
            "leftover -wal file)",
            subject=str(path),
        )
    if "could not decode" in lowered:  # sqlite3 quotes the stored text: never show it
        return corrupt(path, "a stored text value is not valid UTF-8")
    if "disk i/o" in lowered or "disk is full" in lowered:
        return StorageError(f"collection {path}: {text}", subject=str(path))
    return corrupt(path, f"SQLite: {text}")


def _location(args: tuple[Any, ...]) -> str:
    owner = args[0] if args else None
    return str(getattr(owner, "_path", "?"))


def _translate(exc: Exception, args: tuple[Any, ...], records: bool) -> StorageError | None:
    if isinstance(exc, sqlite3.Error):
        return storage_error(exc, _location(args))
    if records and isinstance(exc, ValueError | TypeError | OverflowError):
        # a stored row that fails its own type's checks (a contract, the JSON codec)
        return corrupt(_location(args), f"a stored record is invalid: {str(exc)[:200]}")
    return None


def _guarded(function: Callable[..., Any], records: bool) -> Callable[..., Any]:
    if inspect.isgeneratorfunction(function):

        @functools.wraps(function)
        def generator(*args: Any, **kwargs: Any) -> Iterator[Any]:
            try:
                yield from function(*args, **kwargs)
            except Exception as exc:
                error = _translate(exc, args, records)
                if error is None:
                    raise
                raise error from None

        return generator

    @functools.wraps(function)
    def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return function(*args, **kwargs)
        except Exception as exc:
            error = _translate(exc, args, records)
            if error is None:
                raise
            raise error from None

    return call


def guard_methods(*, records: bool, private: bool = True) -> Callable[[type[T]], type[T]]:
    """A class decorator: every method (``__init__`` and, with ``private``, the private ones
    too) translates ``sqlite3`` errors into ``StorageError`` subclasses; with ``records``,
    also the ``ValueError``/``TypeError`` of a stored row that fails its type's checks (a
    reader's rows come only from the file). ``close`` and the context protocol are left as
    they are.

    Without ``private``, only the entry points are wrapped (the writer's private methods run
    inside them, thousands of times a build): a ``contextlib.contextmanager`` method is then
    guarded as a whole, its exit included, since that runs outside the call that made it."""

    def decorate(cls: type[T]) -> type[T]:
        for name, member in list(vars(cls).items()):
            if name in ("close", "__enter__", "__exit__") or not inspect.isfunction(member):
                continue
            if name.startswith("__") and name != "__init__":
                continue
            if name.startswith("_") and not name.startswith("__") and not private:
                continue
            inner = getattr(member, "__wrapped__", None)
            if inspect.isgeneratorfunction(inner) and not inspect.isgeneratorfunction(member):
                setattr(cls, name, contextlib.contextmanager(_guarded(inner, records)))
                continue
            setattr(cls, name, _guarded(member, records))
        return cls

    return decorate
