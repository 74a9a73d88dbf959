"""The page archive: fetched bodies kept beside the collection, named by their content.

``<index_dir>/<collection>/snapshots/sha256-<64 hex><ext>``, written once (temporary file, then
an atomic rename) before the document that cites it is stored, so a stored citation always has
its bytes on disk. A fetched page's document has its URL as root and this file name as source;
it is cited and verified against the file, offline, never by fetching again (adr/0022). The
folder keeps its name ``snapshots/`` and the documents their ``source_class`` ``"snapshot"``:
both are stored in collections (adr/0051).
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from groundkit.ingestion.fetch import Fetched, redacted

__all__ = ["archive_page", "archived_name", "normalized_url"]


def archived_name(fetched: Fetched) -> str:
    """The content-derived file name of a fetched body (its extension says how to read it)."""
    return f"sha256-{hashlib.sha256(fetched.body).hexdigest()}{fetched.extension}"


def normalized_url(url: str) -> str:
    """The URL as a root: as given, without a fragment or credentials."""
    return redacted(url.split("#", 1)[0])


def archive_page(directory: Path, fetched: Fetched) -> tuple[str, bool]:
    """Store ``fetched`` under ``directory`` (kept if already there): its source name, and
    whether this call created the file."""
    name = archived_name(fetched)
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
