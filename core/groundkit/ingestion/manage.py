"""Managing what a collection holds: list its roots, remove sources, re-root a moved folder.

Each is one library call (the CLI's ``sources``, ``remove`` and ``relocate`` commands call
exactly these). A document is identified by its root (the absolute folder, or a URL) and its
source path under that root; ids do not depend on the root, so a relocated document keeps its
ids and its chunks, and its citations verify against the new place.
"""

from __future__ import annotations

import os
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, DEFAULT_MAX_FILE_BYTES
from groundkit.contracts import Document, content_hash
from groundkit.errors import IngestionError
from groundkit.ingestion.fetch import is_url
from groundkit.ingestion.page_archive import normalized_url

__all__ = [
    "RelocateReport",
    "RemoveReport",
    "SourceRoot",
    "list_sources",
    "relocate_sources",
    "remove_sources",
]

_SHOWN = 5  # failures named in a refusal message


@dataclass(frozen=True, slots=True)
class SourceRoot:
    """One root of a collection: how many documents it holds, by source class."""

    root: str
    """The folder (or URL) documents were ingested from."""
    documents: int
    """How many documents the collection holds from it."""
    classes: dict[str, int]
    """Those documents counted by source class (``text``, ``extracted``, ``snapshot``)."""

    def to_dict(self) -> dict[str, Any]:
        return {"root": self.root, "documents": self.documents, "classes": dict(self.classes)}


@dataclass
class RemoveReport:
    """The documents ``remove_sources`` removed, as ``root/source`` locations."""

    target: str
    """The root, folder or file asked to be removed."""
    collection: str
    """The collection changed."""
    removed: list[str] = field(default_factory=list)
    """The documents removed, as ``root/source``."""
    generation: int = 0
    """The collection's generation after the removal."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "target": self.target,
            "collection": self.collection,
            "removed": self.removed,
            "generation": self.generation,
        }

    def summary(self) -> str:
        return (
            f"removed {len(self.removed)} documents under {self.target} from {self.collection} "
            f"(generation {self.generation})"
        )


@dataclass
class RelocateReport:
    """The documents ``relocate_sources`` moved from ``old`` to ``new`` (sources under it)."""

    old: str
    """The root the documents were recorded under."""
    new: str
    """The root they are recorded under now."""
    collection: str
    """The collection changed."""
    moved: list[str] = field(default_factory=list)
    """The sources moved, each verified against its new file."""
    generation: int = 0
    """The collection's generation after the move."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "collection": self.collection,
            "moved": self.moved,
            "generation": self.generation,
        }

    def summary(self) -> str:
        return (
            f"relocated {len(self.moved)} documents from {self.old} to {self.new}, each verified "
            f"against its new file (generation {self.generation})"
        )


def list_sources(
    index_dir: str | Path = DEFAULT_INDEX_DIR, collection: str = DEFAULT_COLLECTION
) -> list[SourceRoot]:
    """The roots of a collection, sorted, each with its document counts by source class."""
    from groundkit.collection import open_reader

    with open_reader(index_dir, collection) as reader:
        counts = reader.source_counts()
    classes: dict[str, dict[str, int]] = defaultdict(dict)
    for root, source_class, count in counts:
        classes[root][source_class] = count
    return [
        SourceRoot(root, sum(c.values()), dict(sorted(c.items()))) for root, c in classes.items()
    ]


def location_key(target: str | Path) -> str:
    """How a root is spelled in the collection: a URL as given, a path absolute and resolved."""
    text = str(target)
    if is_url(text):
        return normalized_url(text)
    return os.path.realpath(os.path.abspath(text))


def _under(document: Document, target: str) -> bool:
    """Whether ``document`` lies at or under ``target`` (a root, a folder in one, or a file)."""
    where = f"{document.root.rstrip('/')}/{document.source}"
    return any(
        place == target or place.startswith(target.rstrip("/") + "/")
        for place in (document.root, where)
    )


def remove_sources(
    target: str | Path,
    *,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str = DEFAULT_COLLECTION,
) -> RemoveReport:
    """Remove every document at or under ``target`` (a root, a folder in it, a file, a URL).

    The files themselves need not exist any more. ``IngestionError`` (reason
    ``not_in_collection``) when nothing matches; nothing is removed then.
    """
    from groundkit.collection import open_store

    key = location_key(target)
    store = open_store(index_dir, collection, create=False)
    try:
        with store.reader() as reader:
            doomed = [d for d in reader.iter_documents() if _under(d, key)]
        if not doomed:
            raise IngestionError(
                f"{target}: no document of collection {collection!r} lies at or under {key}; "
                "`groundkit sources` lists its roots",
                subject=str(target),
                reason="not_in_collection",
            )
        report = RemoveReport(target=key, collection=collection)
        with store.batch():
            for document in doomed:
                report.generation = store.remove_document(document.document_id)
                report.removed.append(f"{document.root.rstrip('/')}/{document.source}")
    finally:
        store.close()
    _refresh_vectors(index_dir, collection)
    return report


def relocate_sources(
    old: str | Path,
    new: str | Path,
    *,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str = DEFAULT_COLLECTION,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> RelocateReport:
    """Re-root the documents under ``old`` at ``new``, after checking the content moved too.

    Every document's text under ``new`` (re-extracted with its recorded extractor, for
    extracted sources) must hash as it did when ingested; otherwise nothing changes and
    ``IngestionError`` (reason ``relocate_mismatch``) names the files that differ, so a
    folder that was edited as well as moved is re-ingested instead.
    """
    from groundkit.collection import open_store
    from groundkit.retrieval.citations import source_text

    old_key, new_key = location_key(old), location_key(new)
    if not Path(new_key).is_dir():
        raise IngestionError(
            f"{new}: is not a folder; relocate moves a collection's root to the folder it now "
            "lives in",
            subject=str(new),
            reason="not_found",
        )
    store = open_store(index_dir, collection, create=False)
    try:
        with store.reader() as reader:
            moving = [
                d
                for d in reader.iter_documents()
                if d.root == old_key or d.root.startswith(old_key.rstrip("/") + "/")
            ]
        if not moving:
            raise IngestionError(
                f"{old}: no root of collection {collection!r} is {old_key} or inside it; "
                "`groundkit sources` lists its roots",
                subject=str(old),
                reason="not_in_collection",
            )
        targets: list[tuple[Document, str]] = []
        failures: list[str] = []
        for document in moving:
            root = new_key + document.root[len(old_key.rstrip("/")) :]
            targets.append((document, root))
            try:
                text = source_text(
                    root, document.source, extractor=document.extractor, max_bytes=max_bytes
                )
            except IngestionError as exc:
                failures.append(exc.message)
                continue
            if content_hash(text) != document.content_hash:
                failures.append(f"{document.source}: differs from the ingested text")
            elif store.find_document(root, document.source) is not None:
                failures.append(f"{document.source}: is already ingested from {root}")
        if failures:
            shown = "; ".join(failures[:_SHOWN])
            more = f" and {len(failures) - _SHOWN} more" if len(failures) > _SHOWN else ""
            raise IngestionError(
                f"relocate refused, nothing changed: {len(failures)} of {len(moving)} documents "
                f"do not match under {new_key} ({shown}{more}); ingest {new_key} instead (after "
                f"`groundkit remove {old_key}`)",
                subject=str(new),
                reason="relocate_mismatch",
            )
        report = RelocateReport(old=old_key, new=new_key, collection=collection)
        with store.batch():
            for document, root in targets:
                report.generation = store.relocate_document(document.document_id, root)
                report.moved.append(document.source)
    finally:
        store.close()
    return report


def _refresh_vectors(index_dir: str | Path, collection: str) -> None:
    """Bring a recorded derived vector index (usearch) in line after documents were removed."""
    from groundkit.collection import open_reader
    from groundkit.vectors.store_registry import refresh_vector_store

    with open_reader(index_dir, collection) as reader:
        refresh_vector_store(reader, None, location=reader.location)
