"""The collection store protocol: everything durable about a collection sits behind it.

A store is the single writer's view; ``reader()`` gives an immutable snapshot for searching.
Each ``write_document`` or ``remove_document`` is one transaction that also bumps the generation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from groundkit.contracts import Chunk, Document

__all__ = ["CollectionReader", "CollectionStore", "IndexedChunk", "TieKey"]

TieKey = tuple[str, int, str]
"""(document content hash, chunk index, source): the content-derived tie-break of a chunk."""


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """A chunk with its analyzed terms, ready to be written."""

    chunk: Chunk
    term_freqs: Mapping[str, int]
    length: int


@runtime_checkable
class CollectionReader(Protocol):
    """A consistent, read-only snapshot of a collection."""

    @property
    def generation(self) -> int: ...
    @property
    def chunk_count(self) -> int: ...
    @property
    def total_length(self) -> int: ...
    @property
    def analyzer_identity(self) -> dict[str, Any] | None: ...
    def chunk_lengths(self) -> Iterator[tuple[int, int]]:
        """(chunk key, number of terms) for every chunk."""
        ...

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        """(chunk key, term frequency) for every chunk holding ``term``."""
        ...

    def chunks(self, keys: Sequence[int]) -> dict[int, Chunk]: ...
    def tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        """Tie keys of the chunks whose document record exists (others are left out)."""
        ...

    def documents(self, document_ids: Sequence[str]) -> dict[str, Document]: ...
    def iter_chunks(self) -> Iterator[Chunk]: ...
    def iter_documents(self) -> Iterator[Document]: ...
    def status(self) -> dict[str, Any]: ...
    def integrity_problems(self) -> list[str]:
        """Disagreements between documents, chunks, postings and counters; empty when sound."""
        ...

    def close(self) -> None: ...
    def __enter__(self) -> CollectionReader: ...
    def __exit__(self, *exc: object) -> None: ...


@runtime_checkable
class CollectionStore(Protocol):
    """The single writer of a collection."""

    @property
    def location(self) -> str: ...
    def analyzer_identity(self) -> dict[str, Any] | None: ...
    def find_document(self, root: str, source: str) -> Document | None: ...
    def find_document_by_id(self, document_id: str) -> Document | None: ...
    def documents_under(self, root: str) -> list[Document]: ...
    def write_document(
        self,
        document: Document,
        chunks: Sequence[IndexedChunk],
        *,
        analyzer_identity: Mapping[str, Any],
        replaces: str | None = None,
    ) -> int:
        """Store ``document`` (replacing document id ``replaces``) atomically; new generation."""
        ...

    def remove_document(self, document_id: str) -> int: ...
    def reader(self) -> CollectionReader: ...
    def status(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
