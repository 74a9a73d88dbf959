"""The snapshot store: fetched bodies kept beside the collection, named by their content.

``<index_dir>/<collection>/snapshots/sha256-<64 hex><ext>``, written once (temporary file, then
an atomic rename) before the document that cites it is stored, so a stored citation always has
its bytes on disk. A snapshot document's root is its URL and its source this file name; it is
cited and verified against the file, offline, never by fetching again (adr/0022).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from groundkit.ingestion.fetch import Fetched, redacted

__all__ = ["normalized_url", "snapshot_name", "write_snapshot"]


def snapshot_name(fetched: Fetched) -> str:
    """The content-derived file name of a fetched body (its extension says how to read it)."""
    return f"sha256-{hashlib.sha256(fetched.body).hexdigest()}{fetched.extension}"


def normalized_url(url: str) -> str:
    """The URL as a root: as given, without a fragment or credentials."""
    return redacted(url.split("#", 1)[0])


def write_snapshot(directory: Path, fetched: Fetched) -> tuple[str, bool]:
    """Store ``fetched`` under ``directory`` (kept if already there): its source name, and
    whether this call created the file."""
    name = snapshot_name(fetched)
    target = directory / name
    if target.is_file() and target.stat().st_size == len(fetched.body):
        return name, False
    directory.mkdir(parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(dir=directory, prefix=".partial-")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(fetched.body)
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return name, True
