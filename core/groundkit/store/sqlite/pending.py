"""What a writer's open transaction has not written yet, and how it is written at its end.

Documents, chunks, vectors, postings, document-frequency and checksum changes and counters
are gathered per transaction and written once, sorted, in few statements
(adr/0030-ingest-speed.md, adr/0037-ingest-speed-second-pass.md)."""

from __future__ import annotations

import sqlite3
from array import array
from collections.abc import Iterable, Sequence
from itertools import chain, repeat
from typing import Any

from groundkit.contracts import Document
from groundkit.store.sqlite.postings_order import (
    POSTINGS_PER_INSERT,
    OrderedPostings,
    order_postings,
)
from groundkit.store.sqlite.schema import CHECKSUM_MODULUS

__all__ = ["Pending", "add_counts", "insert_new_terms", "insert_postings"]

DOCUMENT_INSERT = (
    "INSERT INTO documents (document_id, root, source, source_class, extractor, content_hash, "
    "fingerprint, char_count, line_count, generation) VALUES (?,?,?,?,?,?,?,?,?,?)"
)
CHUNK_INSERT = (
    "INSERT INTO chunks (chunk_key, chunk_id, document_id, chunk_index, start_offset, "
    "end_offset, start_line, end_line, text, metadata, length, term_ids) "
    "VALUES (?,?,?,?,?,?,?,?,?,?,?,?)"
)
VECTOR_INSERT = "INSERT INTO vectors (chunk_key, vector) VALUES (?, ?)"


class Pending:
    """What the open transaction has not written yet: documents, chunks, vectors, postings,
    counter changes and its generation; where the open document's own begin (a savepoint's
    rollback drops them); and the identities, next term id and next chunk key read in it
    (forgotten on any rollback)."""

    __slots__ = (
        "_mark",
        "bound",
        "bumped",
        "chunk_rows",
        "document_rows",
        "documents",
        "generation",
        "key_runs",
        "length",
        "new_terms",
        "next_chunk_key",
        "next_term_id",
        "sources",
        "term_ids",
        "tfs",
        "vector_rows",
    )

    def __init__(self, generation: int) -> None:
        # The postings, a column each: (term_ids[i], its chunk's key, tfs[i]), in 8 bytes a
        # posting rather than a boxed int's 36 (a commit group holds hundreds of thousands);
        # each chunk's (key, postings) in key_runs, in the order written (keys only grow),
        # one a row of chunk_rows.
        self.term_ids = array("q")
        self.tfs = array("q")
        self.key_runs: list[tuple[int, int]] = []
        self.length = 0
        self.generation = generation
        self.bumped = False
        self.bound: dict[str, str | None] = {}
        self.next_term_id: int | None = None
        self.new_terms: dict[str, int] = {}  # terms this transaction created, not yet stored
        self.next_chunk_key: int | None = None
        # Rows to insert, and the documents among them by id and by (root, source): a
        # lookup in the open transaction finds them as it would find a stored row.
        self.document_rows: list[tuple[Any, ...]] = []
        self.chunk_rows: list[tuple[Any, ...]] = []
        self.vector_rows: list[tuple[int, bytes]] = []
        self.documents: dict[str, Document] = {}
        self.sources: dict[tuple[str, str], Document] = {}
        self._mark: tuple[Any, ...] = (0, 0, generation, False, 0, 0, 0, 0)

    def add_document(self, document: Document, generation: int) -> None:
        """The row of ``document``, written at ``generation``."""
        d = document
        self.document_rows.append(
            (d.document_id, d.root, d.source, d.source_class, d.extractor, d.content_hash,
             d.fingerprint, d.char_count, d.line_count, generation)
        )  # fmt: skip
        self.documents[d.document_id] = d
        self.sources[d.root, d.source] = d

    def add_postings(self, term_ids: Sequence[int], key: int, tfs: Iterable[int]) -> None:
        """The postings of the chunk ``key``: ``term_ids[i]`` with frequency ``tfs[i]``."""
        self.term_ids.extend(term_ids)
        self.key_runs.append((key, len(term_ids)))
        self.tfs.extend(tfs)

    def mark(self) -> None:
        """A document begins: what follows is dropped by ``undo``."""
        self._mark = (
            len(self.term_ids),
            self.length,
            self.generation,
            self.bumped,
            len(self.new_terms),
            len(self.document_rows),
            len(self.chunk_rows),
            len(self.vector_rows),
        )

    def undo(self) -> None:
        """Drop what was added since ``mark`` (the document's write was rolled back)."""
        size, self.length, self.generation, self.bumped, terms, *rows = self._mark
        del self.term_ids[size:], self.tfs[size:]
        for _ in range(len(self.new_terms) - terms):
            self.new_terms.popitem()  # the newest first
        documents, chunks, vectors = rows
        for _ in range(len(self.documents) - documents):
            _, document = self.documents.popitem()
            del self.sources[document.root, document.source]
        del self.document_rows[documents:], self.chunk_rows[chunks:], self.key_runs[chunks:]
        del self.vector_rows[vectors:]

    def write(self, db: sqlite3.Connection) -> bool:
        """Write the documents, chunks and vectors, the new terms with their document
        frequency and checksum, the postings in key order, each older touched term's document
        frequency and checksum change in one statement, the counters and the generation; False
        when there was nothing to write.

        The writes are a savepoint of their own: if one fails, none of them is kept and they
        stay pending (a batch's commit tries again, or rolls back)."""
        if not self.term_ids and not self.chunk_rows and not self.bumped:
            return False
        db.execute("SAVEPOINT flush")
        try:
            db.executemany(DOCUMENT_INSERT, self.document_rows)
            db.executemany(CHUNK_INSERT, self.chunk_rows)
            db.executemany(VECTOR_INSERT, self.vector_rows)
            keys = array("q", chain.from_iterable(repeat(*run) for run in self.key_runs))
            ordered = order_postings(self.term_ids, keys, self.tfs)
            changes = ordered.changes
            if self.new_terms:
                changes = insert_new_terms(db, self.new_terms, changes)
            insert_postings(db, ordered)
            db.executemany(
                "UPDATE terms SET df = df + ?, "
                f"checksum = (checksum + ?) % {CHECKSUM_MODULUS} WHERE term_id = ?",
                changes,
            )
            add_counts(db, len(self.chunk_rows), self.length)
            db.execute(
                "UPDATE meta SET value = ? WHERE key = 'generation'", (str(self.generation),)
            )
        except BaseException:
            db.execute("ROLLBACK TO flush")
            db.execute("RELEASE flush")
            raise
        db.execute("RELEASE flush")
        return True

    def written(self) -> Pending:
        """What is left once the pending writes are made: the transaction's own reads."""
        left = Pending(self.generation)
        left.bound, left.next_term_id = self.bound, self.next_term_id
        left.next_chunk_key = self.next_chunk_key
        return left  # its rows and new terms are stored now: it starts with none


def insert_new_terms(
    db: sqlite3.Connection, new_terms: dict[str, int], changes: list[tuple[int, int, int]]
) -> list[tuple[int, int, int]]:
    """Insert ``new_terms`` with their document frequency and checksum taken from ``changes``
    (each has postings there: a term is created for a chunk's postings); the changes of the
    other, older terms are returned."""
    term_of = {term_id: term for term, term_id in new_terms.items()}
    rows = [(tid, term_of[tid], count, part) for count, part, tid in changes if tid in term_of]
    if len(rows) != len(term_of):
        raise AssertionError("a new term without postings")  # the writer never does this
    db.executemany("INSERT INTO terms (term_id, term, df, checksum) VALUES (?, ?, ?, ?)", rows)
    return [change for change in changes if change[2] not in term_of]


def add_counts(db: sqlite3.Connection, chunks: int, length: int) -> None:
    """Add to the collection's chunk count and total length."""
    db.execute(
        "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'chunk_count'", (chunks,)
    )
    db.execute(
        "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'total_length'", (length,)
    )


def insert_postings(db: sqlite3.Connection, postings: OrderedPostings) -> None:
    """Insert ``postings`` with ``POSTINGS_PER_INSERT`` rows a statement: twice as fast as one
    row a statement."""
    many = "INSERT INTO postings (term_id, chunk_key, tf) VALUES " + ",".join(
        repeat("(?,?,?)", POSTINGS_PER_INSERT)
    )
    db.executemany(many, postings.full)
    db.executemany("INSERT INTO postings (term_id, chunk_key, tf) VALUES (?, ?, ?)", postings.rest)
