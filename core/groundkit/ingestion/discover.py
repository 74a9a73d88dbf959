"""Finding the files an ingest reads: a sorted walk that never leaves the base directory.

Hidden files and folders are skipped, and so are those an ``exclude`` glob names (by name
or by path under the root: ``_theme``, ``drafts/*``); symlinks that resolve outside the base
are refused (and reported); symlinked folders inside it are not followed (their files are
reached by their real path). The walk is iterative (any depth); a folder that cannot be
listed, a name that is not valid UTF-8 and a symlink loop are refused by name, never skipped
silently: the indexer keeps what it stored under a refused folder.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from groundkit.errors import IngestionError
from groundkit.source_files import contained_path, relative_source

__all__ = [
    "Discovery",
    "Refusal",
    "SourceFile",
    "discover",
    "excluded_by",
    "printable_name",
    "require_source",
]


@dataclass(frozen=True, slots=True)
class SourceFile:
    source: str
    path: Path


@dataclass(frozen=True, slots=True)
class Refusal:
    source: str
    """The refused file, relative to the root."""
    reason: str
    """A short stable code (``too_large``, ``not_utf8``, ``extractor_missing``, ...)."""
    message: str
    """What was wrong and how to fix it."""

    @classmethod
    def of(cls, error: IngestionError, source: str) -> Refusal:
        return cls(source=source, reason=error.reason, message=error.message)


@dataclass(frozen=True, slots=True)
class Discovery:
    root: Path
    files: tuple[SourceFile, ...]
    refused: tuple[Refusal, ...]
    is_directory: bool
    skipped: tuple[tuple[str, int], ...] = ()
    """(extension, number of files) not read for their extension, sorted; ``""`` for none."""
    excluded: tuple[str, ...] = ()
    """Files and folders an ``exclude`` pattern named (a folder's contents are not listed)."""


def require_source(path: str | Path) -> Path:
    """``path`` as a Path, or ``IngestionError`` when there is nothing there to ingest."""
    given = Path(path)
    if not given.exists():
        raise IngestionError(
            f"{path}: no such file or directory; pass a folder of documents or one file",
            subject=str(path),
            reason="not_found",
        )
    return given


def excluded_by(source: str, patterns: tuple[str, ...]) -> bool:
    """True when a glob in ``patterns`` matches ``source`` (a path under the root) or its last
    name; case-sensitive on every platform, so a collection is the same everywhere."""
    name = source.rstrip("/").rsplit("/", 1)[-1]
    return any(fnmatchcase(name, p) or fnmatchcase(source.rstrip("/"), p) for p in patterns)


def discover(
    path: str | Path, extensions: tuple[str, ...], exclude: tuple[str, ...] = ()
) -> Discovery:
    """The files under ``path`` (or ``path`` itself) that an ingest should read, sorted."""
    given = require_source(path)
    if not given.is_dir():
        root = given.resolve().parent if not given.is_symlink() else given.absolute().parent
        source = given.name
        try:
            _check_name(source)
            contained_path(root, source)
        except IngestionError as exc:
            return Discovery(root.resolve(), (), (Refusal.of(exc, source),), False)
        return Discovery(root.resolve(), (SourceFile(source, root.resolve() / source),), (), False)

    root = given.resolve()
    wanted = tuple(e.lower() for e in extensions)
    files: list[SourceFile] = []
    refused: list[Refusal] = []
    skipped: Counter[str] = Counter()
    excluded: list[str] = []
    for here, prefix, dirnames, filenames, links in _walk(root, refused):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        if exclude:
            excluded += [prefix + d + "/" for d in dirnames if excluded_by(prefix + d, exclude)]
            dirnames[:] = [d for d in dirnames if not excluded_by(prefix + d, exclude)]
        for name in list(dirnames):
            if not _named(prefix + name, refused):
                dirnames.remove(name)
            elif name in links:
                dirnames.remove(name)
                _check_link(root, here / name, refused)
        for name in sorted(filenames):
            if name.startswith("."):
                continue
            if exclude and excluded_by(prefix + name, exclude):
                excluded.append(prefix + name)
                continue
            if not name.lower().endswith(wanted):
                skipped[os.path.splitext(name)[1].lower()] += 1
                continue
            source = prefix + name  # relative_source(root, full), without re-walking the path
            if not _named(source, refused):
                continue
            full = here / name
            if name in links and not _check_link(root, full, refused):
                continue
            files.append(SourceFile(source, full))
    files.sort(key=lambda f: f.source)
    refused.sort(key=lambda r: r.source)
    return Discovery(
        root,
        tuple(files),
        tuple(refused),
        True,
        tuple(sorted(skipped.items())),
        tuple(sorted(excluded)),
    )


def _check_link(root: Path, link: Path, refused: list[Refusal]) -> bool:
    source = relative_source(root, link)
    try:
        contained_path(root, source)
    except IngestionError as exc:
        refused.append(Refusal.of(exc, source))
        return False
    return True


def _walk(
    root: Path, refused: list[Refusal]
) -> Iterator[tuple[Path, str, list[str], list[str], set[str]]]:
    """``os.walk(root)`` top-down without following links, as a loop (no depth limit).

    Yields each folder, its source prefix (``""`` or ``"a/b/"``), its subfolder and file
    names, and which of them are symlinks (from the listing: no ``lstat`` per entry); like
    ``os.walk``, the caller may prune the subfolder list in place. A folder that cannot be
    listed (permissions, a path over the system's limit, ...) is refused as ``unreadable``.
    """
    stack = [(root, "")]
    while stack:
        folder, prefix = stack.pop()
        dirnames: list[str] = []
        filenames: list[str] = []
        links: set[str] = set()
        try:
            with os.scandir(folder) as entries:
                for entry in entries:
                    try:
                        is_dir = entry.is_dir()
                    except OSError:  # a symlink loop, a vanished entry: treated as a file
                        is_dir = False
                    (dirnames if is_dir else filenames).append(entry.name)
                    if _is_link(entry):
                        links.add(entry.name)
        except OSError as exc:
            source = printable_name(prefix.rstrip("/") or ".")
            refused.append(
                Refusal(
                    source,
                    "unreadable",
                    f"{source}: folder cannot be read ({exc.strerror or exc}); nothing under it "
                    "was ingested and what was stored from it is kept",
                )
            )
            continue
        yield folder, prefix, dirnames, filenames, links
        stack.extend((folder / name, f"{prefix}{name}/") for name in reversed(dirnames))


def _is_link(entry: os.DirEntry[str]) -> bool:
    """``entry.is_symlink()``, False when it cannot be asked (the read that follows refuses
    it)."""
    try:
        return entry.is_symlink()
    except OSError:
        return False


def printable_name(name: str) -> str:
    """``name`` with bytes that are not UTF-8 (surrogate-escaped by the OS layer) as ``\\xNN``."""
    return os.fsencode(name).decode("utf-8", "backslashreplace")


def _check_name(source: str) -> None:
    """Refuse a source whose name is not valid UTF-8 (it could be neither stored nor cited)."""
    try:
        source.encode("utf-8")
    except UnicodeEncodeError:
        shown = printable_name(source)
        raise IngestionError(
            f"{shown}: its name is not valid UTF-8, so it cannot be stored or cited; rename it "
            "(for example with convmv)",
            subject=shown,
            reason="bad_name",
        ) from None


def _named(source: str, refused: list[Refusal]) -> bool:
    """True when ``source`` can be stored; else the refusal is recorded."""
    try:
        _check_name(source)
    except IngestionError as exc:
        refused.append(Refusal.of(exc, printable_name(source)))
        return False
    return True
