"""``ingest()``: the one call that opens a collection, ingests a path into it and closes it.

The CLI, the static-site builder and the evaluation all ingest through here, so a refused
source, the vector-store refresh and closing the store happen the same way everywhere.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, IngestSettings
from groundkit.embedding.embedder import Embedder
from groundkit.errors import CollectionNotFoundError
from groundkit.ingestion.discover import require_source
from groundkit.ingestion.fetch import is_url
from groundkit.ingestion.indexer import Indexer, IngestProgress
from groundkit.ingestion.report import IngestReport

__all__ = ["ingest", "sample_corpus"]


def sample_corpus() -> Path:
    """The folder of the bundled sample documents (a small water-utility handbook)."""
    return Path(__file__).resolve().parent.parent / "sample"


def ingest(  # noqa: PLR0913  the README's first call; keyword-only, one per `ingest` flag
    path: str | Path,
    *,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str = DEFAULT_COLLECTION,
    analyzer: Analyzer | None = None,
    settings: IngestSettings | None = None,
    embedder: Embedder | None = None,
    vector_store: str | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    allow_addresses: Sequence[str] = (),
    fetch_timeout_s: float = 30.0,
    texts: Iterable[tuple[str, str]] | None = None,
    calibrate: bool = True,
) -> IngestReport:
    """Ingest a file or folder into a stored collection (created on first use).

    With ``embedder`` (e.g. ``get_embedder("hash")``) the collection gets a dense side too.
    ``vector_store`` (``exact``, ``usearch``) is built or refreshed afterwards and recorded as
    the collection's default; without it, the recorded one (if any) is refreshed, so a derived
    index never lags the collection. ``progress`` is called after each file.

    An ``http(s)://`` ``path`` is fetched once (within ``fetch_timeout_s``, through the SSRF
    guard: private, loopback and link-local addresses are refused unless listed in
    ``allow_addresses``) into the page archive kept beside the collection, and cited and
    verified against that copy from then on (adr/0022-snapshot-store.md).

    ``texts``: (source, text) pairs ingested as the files of folder ``path`` holding them,
    without reading each file (``Indexer.ingest_texts``: a dataset's corpus in memory).

    ``calibrate``: where the collection changed, it then calibrates where it says "nothing
    here" on its own pseudo queries and records it (``groundkit calibrate --self --write``;
    ``report.calibration``), so a new collection abstains on off-topic questions (adr/0072).
    """
    from groundkit.collection import collection_file, open_reader, open_store, page_archive_dir
    from groundkit.evaluation.self_calibration import recalibrate
    from groundkit.vectors.store_registry import refresh_vector_store

    url = is_url(path)
    if not url:
        require_source(path)  # a missing source is refused before the collection is created
        if texts is None:
            _refuse_empty_folder(Path(path), collection_file(index_dir, collection))
    new = not collection_file(index_dir, collection).exists()
    store = open_store(index_dir, collection)
    try:
        indexer = Indexer(store, analyzer=analyzer, settings=settings, embedder=embedder)
        if texts is not None:
            report = indexer.ingest_texts(path, texts, progress=progress)
        elif url:
            report = indexer.ingest_url(
                str(path),
                archive=page_archive_dir(collection_file(index_dir, collection)),
                allow=tuple(allow_addresses),
                timeout_s=fetch_timeout_s,
                progress=progress,
            )
        else:
            report = indexer.ingest(path, progress=progress)
    finally:
        store.close()
    if new and not report.indexed and _discard(index_dir, collection):
        report.created = False  # nothing stored: no empty collection is left behind
        return report
    with open_reader(index_dir, collection) as reader:
        refresh_vector_store(reader, vector_store, location=reader.location)
    if calibrate:  # the collection as stored calibrates itself (adr/0072)
        report.calibration = recalibrate(index_dir, collection, embedder)
    return report


def _discard(index_dir: str | Path, collection: str) -> bool:
    """Remove a collection this ingest created and stored nothing in, if it still holds no
    chunk (another ingest may have written into it since): its file, the files SQLite and
    groundkit keep beside it, and its folder and page archive where nothing else is in them.
    Whether it was removed."""
    from groundkit.collection import collection_file, open_reader, page_archive_dir
    from groundkit.store.sqlite.stamp import STAMP_SUFFIX

    with open_reader(index_dir, collection) as reader:
        if reader.chunk_count or any(True for _ in reader.iter_documents()):
            return False
    location = collection_file(index_dir, collection)
    for suffix in ("", STAMP_SUFFIX, "-wal", "-shm", "-journal"):
        location.with_name(location.name + suffix).unlink(missing_ok=True)
    for folder in (page_archive_dir(location), location.parent):
        with contextlib.suppress(OSError):  # not empty, or gone: left as it is
            folder.rmdir()
    return True


def _refuse_empty_folder(path: Path, location: Path) -> None:
    """``CollectionNotFoundError`` (exit 3) for a folder holding no file at all when the
    collection does not exist yet: an empty collection would answer every search "no results"
    as if it had been searched (an existing collection is ingested as usual: its files removed)."""
    if location.exists() or not path.is_dir():
        return
    for _folder, _names, files in os.walk(path):
        if files:
            return
    raise CollectionNotFoundError(
        f"nothing to ingest: {path} holds no file, so no collection was created at {location}; "
        "ingest a folder holding documents (or `groundkit ingest sample` for the bundled one)",
        subject=str(path),
    )
