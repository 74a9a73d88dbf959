"""Finding the files an ingest reads: a sorted walk that never leaves the base directory.

Hidden files and folders are skipped; symlinks that resolve outside the base are refused
(and reported); symlinked folders inside it are not followed (their files are reached by
their real path).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from groundkit.errors import IngestionError
from groundkit.sources import contained_path, relative_source

__all__ = ["Discovery", "Refusal", "SourceFile", "discover", "require_source"]


@dataclass(frozen=True, slots=True)
class SourceFile:
    source: str
    path: Path


@dataclass(frozen=True, slots=True)
class Refusal:
    source: str
    reason: str
    message: str

    @classmethod
    def of(cls, error: IngestionError, source: str) -> Refusal:
        return cls(source=source, reason=error.reason, message=error.message)


@dataclass(frozen=True, slots=True)
class Discovery:
    root: Path
    files: tuple[SourceFile, ...]
    refused: tuple[Refusal, ...]
    is_directory: bool


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


def discover(path: str | Path, extensions: tuple[str, ...]) -> Discovery:
    """The files under ``path`` (or ``path`` itself) that an ingest should read, sorted."""
    given = require_source(path)
    if not given.is_dir():
        root = given.resolve().parent if not given.is_symlink() else given.absolute().parent
        source = given.name
        try:
            contained_path(root, source)
        except IngestionError as exc:
            return Discovery(root.resolve(), (), (Refusal.of(exc, source),), False)
        return Discovery(root.resolve(), (SourceFile(source, root.resolve() / source),), (), False)

    root = given.resolve()
    wanted = tuple(e.lower() for e in extensions)
    files: list[SourceFile] = []
    refused: list[Refusal] = []
    for folder, dirnames, filenames in os.walk(root, followlinks=False):
        here = Path(folder)
        dirnames[:] = sorted(d for d in dirnames if not d.startswith("."))
        for name in list(dirnames):
            if (here / name).is_symlink():
                dirnames.remove(name)
                _check_link(root, here / name, refused)
        for name in sorted(filenames):
            if name.startswith(".") or not name.lower().endswith(wanted):
                continue
            full = here / name
            source = relative_source(root, full)
            if full.is_symlink() and not _check_link(root, full, refused):
                continue
            files.append(SourceFile(source, full))
    files.sort(key=lambda f: f.source)
    refused.sort(key=lambda r: r.source)
    return Discovery(root, tuple(files), tuple(refused), True)


def _check_link(root: Path, link: Path, refused: list[Refusal]) -> bool:
    source = relative_source(root, link)
    try:
        contained_path(root, source)
    except IngestionError as exc:
        refused.append(Refusal.of(exc, source))
        return False
    return True
