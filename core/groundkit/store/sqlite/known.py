"""What the writer knows without asking SQLite: term ids, and which documents can be stored.

Both save a query (or a Python loop) per document of a build; both are dropped when another
writer may have written (adr/0038-ingest-speed-third-pass.md)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from groundkit.contracts import Document

__all__ = ["STORED_KEYS_LIMIT", "StoredKeys", "TermIds"]

STORED_KEYS_LIMIT = 200_000
"""Documents whose keys ``StoredKeys`` holds at most (about 30 MB); past it, lookups use SQL."""


class TermIds(dict[str, int]):
    """Term -> id, of stored terms and of terms the open transaction created; a term not
    here is given a new id by ``assign`` on its lookup (``__missing__``), so a chunk's terms
    are looked up in one ``map``. The writer looks terms up this way only when each one not
    here is known not to be stored (the cache holds every term of the file, or the stored
    ones were just read)."""

    __slots__ = ("_assign",)

    def __init__(self, assign: Callable[[str], int]) -> None:
        super().__init__()
        self._assign = assign

    def __missing__(self, term: str) -> int:
        term_id = self._assign(term)
        self[term] = term_id
        return term_id


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
