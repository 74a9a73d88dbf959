"""The single writer of a collection file: one transaction per document, grouped commits."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from groundkit import codec
from groundkit.contracts import Document
from groundkit.manifest import EmbeddingIdentity
from groundkit.store.identity_checks import (
    check_analyzer_write,
    check_embedding_write,
    decode_manifest,
)
from groundkit.store.protocols import IndexedChunk
from groundkit.store.sqlite.checks import check_before_write
from groundkit.store.sqlite.guard import guard_methods, prepare_writable
from groundkit.store.sqlite.known import StoredKeys
from groundkit.store.sqlite.migrate import create_schema, upgrade_schema
from groundkit.store.sqlite.pending import Pending, add_counts
from groundkit.store.sqlite.reader import SqliteReader
from groundkit.store.sqlite.schema import (
    DOCUMENT_COLUMNS,
    SCHEMA_VERSION,
    WAL_CHECKPOINT_PAGES,
    WRITER_CACHE_KIB,
    batches,
    check_stamps,
    connect,
    document_from_row,
    encode_text,
    pack_term_ids,
    posting_term,
    term_ids_code,
    unpack_term_ids,
    user_version,
)
from groundkit.store.sqlite.stamp import drop_stamp, matches_stamp, write_stamp
from groundkit.store.sqlite.term_table import TermIds, add_to_checksums, add_to_df

__all__ = ["SqliteStore"]


@guard_methods(records=False, private=False)
class SqliteStore:
    """Writer of a collection file; creates it on first use.

    An existing file is checked (``PRAGMA integrity_check``) before anything is written, unless
    it is byte-identical to what its last writer closed (a stamp, adr/0030); a file or folder
    that is not writable is refused up front (adr/0023)."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self._path = Path(path)
        if not create and not self._path.is_file():
            from groundkit.errors import CollectionNotFoundError, create_hint

            raise CollectionNotFoundError(
                f"no collection at {self._path}; {create_hint(self._path)}",
                subject=str(self._path),
            )
        prepare_writable(self._path)
        unchanged = matches_stamp(self._path)  # as its last writer closed it (adr/0030)
        drop_stamp(self._path)
        self._db = connect(self._path, write=True)
        self._terms = TermIds(self._db, lambda: self._pending)  # see ``TermIds``
        self._stored: StoredKeys | None = None  # see ``StoredKeys``
        self._cache_generation = -1
        self._batch_generation: int | None = None  # set while a batch() is open
        self._pending = Pending(-1)  # postings and counters of the open transaction, unwritten
        self._analyzer_checked: tuple[str, dict[str, Any]] | None = None
        self._savepoint = False  # a document's own savepoint is open (inside a batch)
        try:
            if not check_stamps(self._db, self._path):
                create_schema(self._db, self._path)
            else:
                if not unchanged:
                    check_before_write(self._db, self._path, version=user_version(self._db))
                if user_version(self._db) < SCHEMA_VERSION:
                    upgrade_schema(self._db)
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            # A page cache that holds the postings tree's hot part, and WAL checkpoints rare
            # enough that a page hit by many commits is written back once (adr/0002).
            self._db.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
            self._db.execute(f"PRAGMA wal_autocheckpoint = {WAL_CHECKPOINT_PAGES}")
            self._db.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            self._db.close()
            raise

    @property
    def location(self) -> str:
        return str(self._path)

    def _meta(self, key: str) -> str | None:
        row = self._db.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
        return None if row is None else str(row[0])

    def analyzer_identity(self) -> dict[str, Any] | None:
        raw = self._meta("analyzer")
        return None if raw is None else dict(codec.decode(raw))

    def embedding_identity(self) -> EmbeddingIdentity | None:
        return decode_manifest(self._meta("embedding"), str(self._path))

    def find_document(self, root: str, source: str) -> Document | None:
        pending = self._pending.sources.get((root, source))
        known = self._known_stored()
        if pending is not None or (known is not None and (root, source) not in known.sources):
            return pending
        row = self._db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE root = ? AND source = ?",
            (root, source),
        ).fetchone()
        return None if row is None else document_from_row(row)

    def find_document_by_id(self, document_id: str) -> Document | None:
        pending = self._pending.documents.get(document_id)
        known = self._known_stored()
        if pending is not None or (known is not None and document_id not in known.ids):
            return pending
        row = self._db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE document_id = ?", (document_id,)
        ).fetchone()
        return None if row is None else document_from_row(row)

    def _known_stored(self) -> StoredKeys | None:
        """The keys of the stored documents, inside a transaction that checked no other
        writer wrote since they were gathered (outside one, another writer may have)."""
        return self._stored if self._db.in_transaction else None

    def documents_under(self, root: str) -> list[Document]:
        if self._pending.document_rows:  # inside a batch: write them first, then read all
            self._flush()
        rows = self._db.execute(
            f"SELECT {DOCUMENT_COLUMNS} FROM documents WHERE root = ? ORDER BY source", (root,)
        ).fetchall()
        return [document_from_row(row) for row in rows]

    def write_document(
        self,
        document: Document,
        chunks: Sequence[IndexedChunk],
        *,
        analyzer_identity: Mapping[str, Any],
        embedding: EmbeddingIdentity | None = None,
        replaces: str | None = None,
    ) -> int:
        self._begin(flush=replaces is not None)
        try:
            self._bind_analyzer(analyzer_identity)
            self._bind_embedding(embedding, chunks, replaces)
            if replaces is not None:
                self._delete_document(replaces)
            generation = self._bump_generation()
            self._pending.add_document(document, generation)
            for item in chunks:
                self._insert_chunk(item)
            self._commit(generation)
        except BaseException:
            self._rollback()
            raise
        return generation

    def remove_document(self, document_id: str) -> int:
        self._begin(flush=True)
        try:
            self._delete_document(document_id)
            generation = self._bump_generation()
            self._commit(generation)
        except BaseException:
            self._rollback()
            raise
        return generation

    def relocate_document(self, document_id: str, root: str) -> int:
        self._begin(flush=True)
        try:
            found = self._db.execute(
                "SELECT source FROM documents WHERE document_id = ?", (document_id,)
            ).fetchone()
            if found is None:
                raise ValueError(f"document {document_id} is not stored")
            taken = self._db.execute(
                "SELECT 1 FROM documents WHERE root = ? AND source = ?", (root, found[0])
            ).fetchone()
            if taken is not None:
                raise ValueError(f"{root}: already holds a document {found[0]}")
            self._writes()
            self._db.execute(
                "UPDATE documents SET root = ? WHERE document_id = ?", (root, document_id)
            )
            if self._stored is not None:
                self._stored.sources.add((root, found[0]))
            generation = self._bump_generation()
            self._commit(generation)
        except BaseException:
            self._rollback()
            raise
        return generation

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Commit the writes made inside together, each document still atomic on its own.

        Every document is atomic in one transaction: a failing write rolls back only that
        document (its pending rows, and a savepoint around any SQL it ran itself), and leaving
        the block (normally or by an exception) commits the documents finished so far. Pages
        shared by many documents (interior B-tree pages, the terms table) then reach the WAL
        once per batch rather than once per document.
        """
        if self._batch_generation is not None:
            yield
            return
        self._begin()
        self._batch_generation = self._cache_generation
        try:
            yield
        finally:
            generation, self._batch_generation = self._batch_generation, None
            try:
                self._commit(generation)
            except BaseException:
                self._rollback()
                raise

    def _begin(self, *, flush: bool = False) -> None:
        """Start a document's write: inside a batch a mark in the pending rows (its savepoint
        opens with its first own SQL write, ``_writes``), else a write transaction.

        Inside a batch, a write that reads or changes stored rows (a delete, a relocation)
        first writes the batch's pending ones (it may concern a document written earlier in
        the batch)."""
        if self._batch_generation is not None:
            if flush:
                self._flush()
            self._pending.mark()
            return
        self._db.execute("BEGIN IMMEDIATE")
        self._pending = Pending(int(self._meta("generation") or 0))
        if self._pending.generation != self._cache_generation:
            # another writer may have written since: what this one knew is void
            empty = self._db.execute("SELECT 1 FROM terms LIMIT 1").fetchone() is None
            self._terms.forget(complete=empty)
            none = self._db.execute("SELECT 1 FROM documents LIMIT 1").fetchone() is None
            self._stored = StoredKeys() if none else None  # a first build: no lookups

    def _commit(self, generation: int) -> None:
        """Finish a document inside a batch, or the transaction (pending writes, COMMIT)."""
        if self._batch_generation is not None:
            if self._savepoint:
                self._db.execute("RELEASE document")
                self._savepoint = False
            self._batch_generation = generation
            return
        self._flush()
        self._db.execute("COMMIT")
        self._cache_generation = generation

    def _rollback(self) -> None:
        self._terms.forget()
        self._pending.bound.clear()
        self._pending.next_term_id = None
        self._pending.next_chunk_key = None
        if self._batch_generation is not None:
            self._pending.undo()
            if self._savepoint:
                self._db.execute("ROLLBACK TO document")
                self._db.execute("RELEASE document")
                self._savepoint = False
            return
        self._pending = Pending(-1)
        if self._db.in_transaction:
            self._db.execute("ROLLBACK")
        self._cache_generation = -1

    def _writes(self) -> None:
        """Called before each SQL write a document's own write makes (not its pending rows):
        inside a batch, its savepoint opens, once, so that a rollback undoes the write. Most
        documents make none, and cost no savepoint."""
        if self._batch_generation is not None and not self._savepoint:
            self._db.execute("SAVEPOINT document")
            self._savepoint = True

    def _flush(self) -> None:
        """Write the transaction's pending postings in key order, each touched term's document
        frequency and checksum change in one statement, and the counters.

        The writes are a savepoint of their own: if one fails, none of them is kept and the
        pending ones stay pending (a batch's commit tries again, or rolls back)."""
        stored = self._stored
        if stored is not None and not stored.add(self._pending.documents.values()):
            self._stored = None  # too many to hold: lookups use SQL from now on
        if self._pending.write(self._db):
            self._pending = self._pending.written()

    def _bound(self, key: str) -> str | None:
        """The meta value ``key`` (an identity), read once per transaction."""
        if key not in self._pending.bound:
            self._pending.bound[key] = self._meta(key)
        return self._pending.bound[key]

    def _bind_analyzer(self, identity: Mapping[str, Any]) -> None:
        stored = self._bound("analyzer")
        if stored is not None and self._analyzer_checked == (stored, identity):
            return  # the identity the last write checked against this stored one
        wanted = check_analyzer_write(str(self._path), stored, identity)
        if stored is None:
            self._writes()
            self._db.execute("INSERT INTO meta (key, value) VALUES ('analyzer', ?)", (wanted,))
            self._pending.bound["analyzer"] = wanted
        self._analyzer_checked = (wanted, dict(identity))

    def _bind_embedding(
        self,
        embedding: EmbeddingIdentity | None,
        chunks: Sequence[IndexedChunk],
        replaces: str | None,
    ) -> None:
        stored = self._bound("embedding")
        other = False
        if embedding is not None and stored is None:  # only a binding write asks
            other = any(i != replaces for i in self._pending.documents) or (
                self._db.execute(
                    "SELECT 1 FROM documents WHERE document_id IS NOT ? LIMIT 1", (replaces,)
                ).fetchone()
                is not None
            )
        manifest = check_embedding_write(
            str(self._path), stored, embedding, chunks, holds_other_documents=other
        )
        if manifest is not None:
            self._writes()
            self._db.execute("INSERT INTO meta (key, value) VALUES ('embedding', ?)", (manifest,))
            self._pending.bound["embedding"] = manifest

    def _bump_generation(self) -> int:
        """The next generation (this writer holds the write lock; written by ``_flush``)."""
        self._pending.generation += 1
        self._pending.bumped = True
        return self._pending.generation

    def _add_counts(self, chunks: int, length: int) -> None:
        add_counts(self._db, chunks, length)

    def _insert_chunk(self, item: IndexedChunk) -> None:
        c = item.chunk
        freqs = item.term_freqs
        term_ids = self._terms.ids(list(freqs))
        key = self._next_chunk_key()
        pending = self._pending
        pending.chunk_rows.append(
            (key, c.chunk_id, c.document_id, c.chunk_index, c.start_offset, c.end_offset,
             c.start_line, c.end_line, encode_text(c.text), codec.encode(dict(c.metadata)),
             item.length, pack_term_ids(term_ids))
        )  # fmt: skip
        pending.add_postings(term_ids, key, freqs.values())
        pending.length += item.length
        if item.vector is not None:
            pending.vector_rows.append((key, item.vector))

    def _next_chunk_key(self) -> int:
        """A key for a new chunk: past every stored and pending one (this writer holds the
        write lock; the stored maximum is read once per transaction). Keys only grow."""
        pending = self._pending
        key = pending.next_chunk_key
        if key is None:
            found = self._db.execute("SELECT coalesce(max(chunk_key), 0) + 1 FROM chunks")
            key = int(found.fetchone()[0])
            if pending.chunk_rows:
                key = max(key, pending.chunk_rows[-1][0] + 1)
        pending.next_chunk_key = key + 1
        return key

    def _delete_document(self, document_id: str) -> None:
        self._writes()
        db = self._db
        rows = db.execute(
            "SELECT chunk_key, length, term_ids FROM chunks WHERE document_id = ?", (document_id,)
        ).fetchall()
        removed_length = 0
        for key, length, blob in rows:
            removed_length += length
            term_ids = unpack_term_ids(blob, term_ids_code(SCHEMA_VERSION))
            found: list[tuple[int, int]] = []
            for batch, marks in batches(term_ids):
                found.extend(
                    db.execute(
                        f"SELECT term_id, tf FROM postings WHERE chunk_key = ? "
                        f"AND term_id IN ({marks})",
                        (key, *batch),
                    )
                )
            add_to_checksums(db, [(tid, posting_term(key, tf)) for tid, tf in found], -1)
            db.executemany(
                "DELETE FROM postings WHERE term_id = ? AND chunk_key = ?",
                [(tid, key) for tid in term_ids],
            )
            add_to_df(db, term_ids.tolist(), -1)
        db.execute("DELETE FROM terms WHERE df <= 0")
        self._terms.forget()
        db.execute(
            "DELETE FROM vectors WHERE chunk_key IN "
            "(SELECT chunk_key FROM chunks WHERE document_id = ?)",
            (document_id,),
        )
        db.execute("DELETE FROM chunks WHERE document_id = ?", (document_id,))
        db.execute("DELETE FROM documents WHERE document_id = ?", (document_id,))
        self._add_counts(-len(rows), -removed_length)

    def reader(self) -> SqliteReader:
        return SqliteReader(self._path)

    def status(self) -> dict[str, Any]:
        with self.reader() as reader:
            return reader.status()

    def close(self) -> None:
        self._db.close()
        write_stamp(self._path)

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
