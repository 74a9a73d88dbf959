"""The collection store protocol: everything durable about a collection sits behind it.

A store is the single writer's view; ``reader()`` gives an immutable read view for searching.
Each ``write_document`` or ``remove_document`` is one transaction that also bumps the generation.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from groundkit.contracts import Chunk, Document
from groundkit.manifest import EmbeddingIdentity

__all__ = ["CollectionReader", "CollectionStore", "IndexedChunk", "TieKey"]

TieKey = tuple[str, int, str]
"""(document content hash, chunk index, source): the content-derived tie-break of a chunk."""


@dataclass(frozen=True, slots=True)
class IndexedChunk:
    """A chunk with its analyzed terms (and its packed vector, in a dense collection)."""

    chunk: Chunk
    term_freqs: Mapping[str, int]
    length: int
    vector: bytes | None = None
    """float32 little-endian (``groundkit.vectors.pack_vector``); None in a lexical collection."""


@runtime_checkable
class CollectionReader(Protocol):
    """A consistent read view of a collection (read-only)."""

    @property
    def location(self) -> str:
        """Where the collection lives (its file, or a name for one in memory), for messages."""
        ...

    @property
    def generation(self) -> int: ...
    @property
    def chunk_count(self) -> int: ...
    @property
    def total_length(self) -> int: ...
    @property
    def analyzer_identity(self) -> dict[str, Any] | None: ...
    @property
    def embedding_identity(self) -> EmbeddingIdentity | None:
        """The embedding manifest, or None for a lexical-only collection."""
        ...

    def vectors(self) -> Iterator[tuple[int, bytes]]:
        """(chunk key, packed vector) for every stored vector, read lazily."""
        ...

    def chunk_lengths(self) -> Iterator[tuple[int, int]]:
        """(chunk key, number of terms) for every chunk."""
        ...

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        """(chunk key, term frequency) for every chunk holding ``term``."""
        ...

    def indexed_terms(self, prefix: str = "") -> list[str]:
        """The terms some chunk holds that start with ``prefix``, in code-point order (the
        lexicon that prefix and typo-tolerant search expand query words over)."""
        ...

    def stored_idf(self) -> Mapping[int, float] | None:
        """Lucene's idf per document frequency as the machine that wrote the store computed it
        (a static site ships it), so that every runtime reading it scores with the same bits
        whatever its ``log``; None where each reader computes it (adr/0062)."""
        ...

    def shipped_lexical_bar(self) -> Mapping[str, Any] | None:
        """bm25's lexical bar where the store carries it (a static site's head holds the
        record ``lexical-bar.json`` holds beside a collection file); None elsewhere."""
        ...

    def shipped_dense_floor(self) -> Mapping[str, Any] | None:
        """The dense floor and hybrid's share where the store carries them (a static site
        with vectors holds the record ``dense-floor.json`` holds beside a collection file,
        ``FloorRecord.to_dict()``); None elsewhere (adr/0070)."""
        ...

    def indexed_words(self) -> list[str] | None:
        """The surface words of the chunks' text (``analysis.tokenize.surface_words``) where
        the store keeps them (a static site ships them); None where the lexicon reads them
        from the chunks on first use."""
        ...

    def chunks(self, keys: Sequence[int]) -> dict[int, Chunk]: ...
    def chunk_by_id(self, chunk_id: str) -> Chunk | None:
        """The chunk with this id (``chk_...``), or None when this read view has none."""
        ...

    def tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        """Tie keys of the chunks whose document record exists (others are left out)."""
        ...

    def iter_tie_keys(self) -> Iterator[tuple[int, TieKey]]:
        """(chunk key, tie key) for every chunk whose document record exists, in one pass."""
        ...

    def documents(self, document_ids: Sequence[str]) -> dict[str, Document]: ...
    def iter_chunks(self) -> Iterator[Chunk]:
        """Every chunk, by (document id, chunk index): a document's chunks come in a row."""
        ...

    def iter_documents(self) -> Iterator[Document]: ...
    def source_counts(self) -> list[tuple[str, str, int]]:
        """(root, source class, number of documents), sorted: what ``groundkit sources`` lists."""
        ...

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
    def embedding_identity(self) -> EmbeddingIdentity | None: ...
    def find_document(self, root: str, source: str) -> Document | None: ...
    def find_document_by_id(self, document_id: str) -> Document | None: ...
    def documents_under(self, root: str) -> list[Document]: ...
    def write_document(
        self,
        document: Document,
        chunks: Sequence[IndexedChunk],
        *,
        analyzer_identity: Mapping[str, Any],
        embedding: EmbeddingIdentity | None = None,
        replaces: str | None = None,
    ) -> int:
        """Store ``document`` (replacing document id ``replaces``) atomically; new generation.

        With ``embedding``, every chunk must carry its vector, written in the same transaction;
        the first such write binds the collection to that identity. A collection bound to an
        embedding refuses writes without one, and a lexical collection that already holds
        documents refuses to be bound (``IndexIdentityError``).
        """
        ...

    def remove_document(self, document_id: str) -> int: ...
    def relocate_document(self, document_id: str, root: str) -> int:
        """Give a stored document another root (its source, ids and chunks unchanged); new
        generation. ``ValueError`` if that (root, source) is taken or the document is unknown."""
        ...

    def batch(self) -> AbstractContextManager[None]:
        """Group the writes made inside into one commit; each document stays atomic."""
        ...

    def reader(self) -> CollectionReader: ...
    def status(self) -> dict[str, Any]: ...
    def close(self) -> None: ...
