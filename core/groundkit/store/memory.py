"""An in-process store behind the same protocol, for hosts without ``sqlite3``.

Nothing is persisted. A reader shares the current state; the next write copies it first
(copy-on-write), so creating a read view is O(1) and a read view never changes.
"""

from __future__ import annotations

import contextlib
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from groundkit import codec
from groundkit.contracts import Chunk, Document
from groundkit.manifest import EmbeddingIdentity
from groundkit.store.identity_checks import (
    check_analyzer_write,
    check_embedding_write,
    decode_manifest,
)
from groundkit.store.protocols import IndexedChunk, TieKey

__all__ = ["MemoryReader", "MemoryStore"]


@dataclass
class _State:
    generation: int = 0
    total_length: int = 0
    next_key: int = 1
    analyzer: str | None = None
    embedding: str | None = None
    documents: dict[str, Document] = field(default_factory=dict)
    by_source: dict[tuple[str, str], str] = field(default_factory=dict)
    chunks: dict[int, tuple[Chunk, int, tuple[str, ...]]] = field(default_factory=dict)
    chunks_of: dict[str, list[int]] = field(default_factory=dict)
    postings: dict[str, dict[int, int]] = field(default_factory=dict)
    vectors: dict[int, bytes] = field(default_factory=dict)

    def clone(self) -> _State:
        """A copy sharing only immutable values (documents, chunks, tuples)."""
        return _State(
            generation=self.generation,
            total_length=self.total_length,
            next_key=self.next_key,
            analyzer=self.analyzer,
            embedding=self.embedding,
            documents=dict(self.documents),
            by_source=dict(self.by_source),
            chunks=dict(self.chunks),
            chunks_of={k: list(v) for k, v in self.chunks_of.items()},
            postings={t: dict(p) for t, p in self.postings.items()},
            vectors=dict(self.vectors),
        )


class MemoryStore:
    """A collection held in memory; ``name`` only labels it in messages and status."""

    def __init__(self, name: str = "memory") -> None:
        self._name = name
        self._state = _State()
        self._shared = False

    @property
    def location(self) -> str:
        return f"memory:{self._name}"

    def analyzer_identity(self) -> dict[str, Any] | None:
        raw = self._state.analyzer
        return None if raw is None else dict(codec.decode(raw))

    def embedding_identity(self) -> EmbeddingIdentity | None:
        return decode_manifest(self._state.embedding, self.location)

    def find_document(self, root: str, source: str) -> Document | None:
        document_id = self._state.by_source.get((root, source))
        return None if document_id is None else self._state.documents[document_id]

    def find_document_by_id(self, document_id: str) -> Document | None:
        return self._state.documents.get(document_id)

    def documents_under(self, root: str) -> list[Document]:
        found = [d for d in self._state.documents.values() if d.root == root]
        return sorted(found, key=lambda d: d.source)

    def _writable(self) -> _State:
        """The state to mutate: copied first if a reader shares it (readers keep the old one)."""
        if self._shared:
            self._state = self._state.clone()
            self._shared = False
        return self._state

    def write_document(
        self,
        document: Document,
        chunks: Sequence[IndexedChunk],
        *,
        analyzer_identity: Mapping[str, Any],
        embedding: EmbeddingIdentity | None = None,
        replaces: str | None = None,
    ) -> int:
        # Every check runs before the first mutation, so a refusal leaves the state untouched.
        wanted = check_analyzer_write(self.location, self._state.analyzer, analyzer_identity)
        if document.document_id in self._state.documents and document.document_id != replaces:
            raise ValueError(f"document {document.document_id} is already stored")
        manifest = check_embedding_write(
            self.location,
            self._state.embedding,
            embedding,
            chunks,
            holds_other_documents=any(d != replaces for d in self._state.documents),
        )
        entries = [
            (i.chunk, i.length, tuple(sorted(i.term_freqs)), i.term_freqs, i.vector) for i in chunks
        ]
        state = self._writable()
        state.analyzer = wanted
        if manifest is not None:
            state.embedding = manifest
        if replaces is not None:
            _delete(state, replaces)
        state.generation += 1
        state.documents[document.document_id] = document
        state.by_source[(document.root, document.source)] = document.document_id
        keys: list[int] = []
        for chunk, length, terms, freqs, vector in entries:
            key = state.next_key
            state.next_key += 1
            keys.append(key)
            state.chunks[key] = (chunk, length, terms)
            if vector is not None:
                state.vectors[key] = vector
            state.total_length += length
            for term in terms:
                state.postings.setdefault(term, {})[key] = freqs[term]
        state.chunks_of[document.document_id] = keys
        return state.generation

    def remove_document(self, document_id: str) -> int:
        state = self._writable()
        _delete(state, document_id)
        state.generation += 1
        return state.generation

    def relocate_document(self, document_id: str, root: str) -> int:
        document = self._state.documents.get(document_id)
        if document is None:
            raise ValueError(f"document {document_id} is not stored")
        if (root, document.source) in self._state.by_source:
            raise ValueError(f"{root}: already holds a document {document.source}")
        state = self._writable()
        del state.by_source[(document.root, document.source)]
        state.documents[document_id] = replace(document, root=root)
        state.by_source[(root, document.source)] = document_id
        state.generation += 1
        return state.generation

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Nothing to group: every write is applied (or refused whole) at once."""
        yield

    def reader(self) -> MemoryReader:
        self._shared = True
        return MemoryReader(self._state, self.location)

    def status(self) -> dict[str, Any]:
        return self.reader().status()

    def close(self) -> None:
        """Nothing to release; the data lives as long as this object."""


def _delete(state: _State, document_id: str) -> None:
    document = state.documents.pop(document_id, None)
    if document is None:
        return
    state.by_source.pop((document.root, document.source), None)
    for key in state.chunks_of.pop(document_id, []):
        _, length, terms = state.chunks.pop(key)
        state.vectors.pop(key, None)
        state.total_length -= length
        for term in terms:
            posting = state.postings[term]
            del posting[key]
            if not posting:
                del state.postings[term]


class MemoryReader:
    """A read view of a ``MemoryStore`` state (never mutated after it is shared)."""

    def __init__(self, state: _State, location: str) -> None:
        self._state = state
        self._location = location

    @property
    def location(self) -> str:
        return self._location

    @property
    def generation(self) -> int:
        return self._state.generation

    @property
    def chunk_count(self) -> int:
        return len(self._state.chunks)

    @property
    def total_length(self) -> int:
        return self._state.total_length

    @property
    def analyzer_identity(self) -> dict[str, Any] | None:
        raw = self._state.analyzer
        return None if raw is None else dict(codec.decode(raw))

    @property
    def embedding_identity(self) -> EmbeddingIdentity | None:
        return decode_manifest(self._state.embedding, self._location)

    def vectors(self) -> Iterator[tuple[int, bytes]]:
        yield from self._state.vectors.items()

    def chunk_lengths(self) -> Iterator[tuple[int, int]]:
        for key, (_, length, _) in self._state.chunks.items():
            yield key, length

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        return tuple(self._state.postings.get(term, {}).items())

    def indexed_terms(self, prefix: str = "") -> list[str]:
        held = self._state.postings
        return sorted(term for term in held if held[term] and term.startswith(prefix))

    def stored_idf(self) -> None:
        return None  # computed by the reader's own log

    def shipped_lexical_bar(self) -> None:
        return None  # recorded beside the collection file, if anywhere (lexical-bar.json)

    def shipped_dense_floor(self) -> None:
        return None  # recorded beside the collection file, if anywhere (dense-floor.json)

    def indexed_words(self) -> None:
        return None  # read from the chunks by the lexicon, on first use

    def chunks(self, keys: Sequence[int]) -> dict[int, Chunk]:
        found = self._state.chunks
        return {key: found[key][0] for key in keys if key in found}

    def chunk_by_id(self, chunk_id: str) -> Chunk | None:
        return next((e[0] for e in self._state.chunks.values() if e[0].chunk_id == chunk_id), None)

    def tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        chunks = self._state.chunks
        return dict(self._tie_keys_of(key for key in keys if key in chunks))

    def iter_tie_keys(self) -> Iterator[tuple[int, TieKey]]:
        return self._tie_keys_of(list(self._state.chunks))

    def _tie_keys_of(self, keys: Iterable[int]) -> Iterator[tuple[int, TieKey]]:
        chunks, documents = self._state.chunks, self._state.documents
        for key in keys:
            chunk = chunks[key][0]
            document = documents.get(chunk.document_id)
            if document is not None:
                yield key, (document.content_hash, chunk.chunk_index, document.source)

    def documents(self, document_ids: Sequence[str]) -> dict[str, Document]:
        docs = self._state.documents
        return {i: docs[i] for i in document_ids if i in docs}

    def source_counts(self) -> list[tuple[str, str, int]]:
        counts = Counter((d.root, d.source_class) for d in self._state.documents.values())
        return [(root, kind, n) for (root, kind), n in sorted(counts.items())]

    def iter_documents(self) -> Iterator[Document]:
        yield from sorted(self._state.documents.values(), key=lambda d: (d.root, d.source))

    def iter_chunks(self) -> Iterator[Chunk]:
        for entry in sorted(
            self._state.chunks.values(), key=lambda e: (e[0].document_id, e[0].chunk_index)
        ):
            yield entry[0]

    def integrity_problems(self) -> list[str]:
        state = self._state
        problems: list[str] = []
        if sum(length for _, length, _ in state.chunks.values()) != state.total_length:
            problems.append("total_length counter disagrees with the chunks")
        for key, (chunk, _, terms) in state.chunks.items():
            if chunk.document_id not in state.documents:
                problems.append(f"chunk {chunk.chunk_id} has no document")
            if any(key not in state.postings.get(t, {}) for t in terms):
                problems.append(f"chunk {chunk.chunk_id} is missing postings")
            if state.embedding is not None and key not in state.vectors:
                problems.append(f"chunk {chunk.chunk_id} has no vector")
        orphans = sum(1 for key in state.vectors if key not in state.chunks)
        if orphans:
            problems.append(f"vectors without a chunk: {orphans}")
        return problems

    def status(self) -> dict[str, Any]:
        return {
            "location": self._location,
            "store": "memory",
            "schema_version": None,
            "documents": len(self._state.documents),
            "chunks": self.chunk_count,
            "terms": len(self._state.postings),
            "generation": self.generation,
            "analyzer": self.analyzer_identity,
            "embedding": None
            if self.embedding_identity is None
            else self.embedding_identity.to_dict(),
            "vectors": len(self._state.vectors),
            "size_bytes": None,
        }

    def close(self) -> None:
        """Nothing to release."""

    def __enter__(self) -> MemoryReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
