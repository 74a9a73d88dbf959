"""Which documents a writer knows are not stored, without asking SQLite.

It saves two queries per document of a first build; it is dropped when another writer may have
written (adr/0038-ingest-speed-third-pass.md)."""

from __future__ import annotations

from collections.abc import Iterable

from groundkit.contracts import Document

__all__ = ["STORED_KEYS_LIMIT", "StoredKeys"]

STORED_KEYS_LIMIT = 200_000
"""Documents whose keys ``StoredKeys`` holds at most (about 30 MB); past it, lookups use SQL."""


class StoredKeys:
    """The ids and (root, source) keys of every document the file holds, and maybe of some it
    no longer holds: a key not here is not stored, and its lookup needs no SQL (a key here is
    looked up). Started when a transaction finds the file holding no document; a deletion
    leaves its keys (a superset stays true); ``add`` says False once it holds too many."""

    __slots__ = ("ids", "sources")

    def __init__(self) -> None:
        self.ids: set[str] = set()
        self.sources: set[tuple[str, str]] = set()

    def add(self, documents: Iterable[Document]) -> bool:
        """Hold the keys of ``documents`` (about to be stored); False when over the limit."""
        for document in documents:
            self.ids.add(document.document_id)
            self.sources.add((document.root, document.source))
        return len(self.ids) <= STORED_KEYS_LIMIT
