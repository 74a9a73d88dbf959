"""A read view of a collection file: a read transaction held from open to ``close()``."""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from groundkit import codec
from groundkit.contracts import Chunk, Document
from groundkit.errors import StorageError
from groundkit.manifest import EmbeddingIdentity
from groundkit.store.identity_checks import decode_manifest
from groundkit.store.protocols import TieKey
from groundkit.store.sqlite.checks import integrity_problems, sqlite_check
from groundkit.store.sqlite.guard import corrupt, guard_methods
from groundkit.store.sqlite.schema import (
    CHUNK_COLUMNS,
    DOCUMENT_COLUMNS,
    DOCUMENT_COLUMNS_V2,
    TIE_KEYS_QUERY,
    batches,
    check_stamps,
    chunk_from_row,
    connect,
    document_from_row,
    postings_checksum,
    user_version,
)

__all__ = ["SqliteReader"]


@guard_methods(records=True)
class SqliteReader:
    """A read view: a read transaction held open from construction to ``close()``."""

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        if not self._path.is_file():
            from groundkit.errors import CollectionNotFoundError, create_hint

            raise CollectionNotFoundError(
                f"no collection at {self._path}; {create_hint(self._path)}",
                subject=str(self._path),
            )
        self._db = connect(self._path)
        try:
            if not check_stamps(self._db, self._path):  # an ingest stopped while creating it
                from groundkit.errors import CollectionNotFoundError, create_hint

                raise CollectionNotFoundError(
                    f"{self._path} holds no collection yet (an ingest stopped before creating "
                    f"it); {create_hint(self._path)}",
                    subject=str(self._path),
                )
            self._db.execute("BEGIN")
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            self._schema_version = user_version(self._db)
            self._has_vectors = self._schema_version >= 2
            self._has_checksums = self._schema_version >= 3
            self._columns = DOCUMENT_COLUMNS if self._schema_version >= 4 else DOCUMENT_COLUMNS_V2
        except BaseException:
            self._db.close()
            raise
        try:
            self._generation = int(meta.get("generation", 0))
            self._chunk_count = int(meta.get("chunk_count", 0))
            self._total_length = int(meta.get("total_length", 0))
            raw = meta.get("analyzer")
            self._analyzer = None if raw is None else dict(codec.decode(raw))
        except (ValueError, TypeError):
            self.close()
            raise corrupt(self._path, "its meta table holds an unreadable value") from None
        try:
            self._embedding = decode_manifest(meta.get("embedding"), str(self._path))
        except BaseException:
            self.close()
            raise
        self._term_cache: dict[str, tuple[int, int] | None] = {}

    @property
    def location(self) -> str:
        return str(self._path)

    @property
    def generation(self) -> int:
        return self._generation

    @property
    def chunk_count(self) -> int:
        return self._chunk_count

    @property
    def total_length(self) -> int:
        return self._total_length

    @property
    def analyzer_identity(self) -> dict[str, Any] | None:
        return self._analyzer

    @property
    def embedding_identity(self) -> EmbeddingIdentity | None:
        return self._embedding

    def vectors(self) -> Iterator[tuple[int, bytes]]:
        if not self._has_vectors:
            return
        try:
            rows = self._db.execute("SELECT chunk_key, vector FROM vectors")
        except sqlite3.DatabaseError as exc:
            raise StorageError(
                f"collection {self._path}: its vectors cannot be read ({exc}); the dense side is "
                "missing or damaged: re-ingest into a new collection",
                subject=str(self._path),
            ) from exc
        yield from rows

    def chunk_lengths(self) -> Iterator[tuple[int, int]]:
        """Every chunk's length; read to the end, checked against the stored counters."""
        count = total = 0
        for key, length in self._db.execute("SELECT chunk_key, length FROM chunks"):
            count += 1
            total += length
            yield key, length
        if (count, total) != (self._chunk_count, self._total_length):
            raise corrupt(
                self._path,
                f"{count} chunks of total length {total}, but its counters say "
                f"{self._chunk_count} and {self._total_length}",
            )

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        """``(chunk_key, tf)`` of ``term``'s postings, checked against the term's document
        frequency and (schema 3) checksum: a damaged list is never scored (adr/0023)."""
        columns = "term_id, df, checksum" if self._has_checksums else "term_id, df, NULL"
        row = self._db.execute(f"SELECT {columns} FROM terms WHERE term = ?", (term,)).fetchone()
        if row is None:
            return ()
        term_id, df, checksum = row
        rows = self._db.execute(
            "SELECT chunk_key, tf FROM postings WHERE term_id = ?", (term_id,)
        ).fetchall()
        if len(rows) != df:
            raise corrupt(
                self._path,
                f"term {term_id} has {len(rows)} postings, but its document frequency says {df}",
            )
        if checksum is not None and postings_checksum(rows) != checksum:
            raise corrupt(self._path, f"the postings of term {term_id} fail their checksum")
        return rows

    def indexed_terms(self, prefix: str = "") -> list[str]:
        # SQLite orders TEXT by its UTF-8 bytes, which is code-point order; the range reads
        # only the prefix's slice of the term index.
        args: tuple[str, ...] = ()
        if not prefix:
            sql = "SELECT term FROM terms WHERE df > 0 ORDER BY term"
        else:
            sql = "SELECT term FROM terms WHERE term >= ? AND term < ? AND df > 0 ORDER BY term"
            args = (prefix, prefix + "\U0010ffff")
        return [term for (term,) in self._db.execute(sql, args)]

    def stored_idf(self) -> None:
        return None  # computed by the reader's own log

    def shipped_lexical_bar(self) -> None:
        return None  # recorded beside the collection file, if anywhere (lexical-bar.json)

    def shipped_dense_floor(self) -> None:
        return None  # recorded beside the collection file, if anywhere (dense-floor.json)

    def indexed_words(self) -> None:
        return None  # read from the chunks by the lexicon, on first use

    def _in_batches(self, sql: str, values: Sequence[Any]) -> Iterator[Sequence[Any]]:
        # Rows fetched a batch at a time, not the cursor delegated to: closing a generator a
        # caller left (a row failed to decode) would close the cursor, and so raise once the
        # connection is closed.
        for batch, marks in batches(values):
            yield from self._db.execute(sql.format(marks=marks), tuple(batch)).fetchall()

    def chunks(self, keys: Sequence[int]) -> dict[int, Chunk]:
        sql = f"SELECT chunk_key, {CHUNK_COLUMNS} FROM chunks WHERE chunk_key IN ({{marks}})"
        return {row[0]: chunk_from_row(row[1:]) for row in self._in_batches(sql, keys)}

    def chunk_by_id(self, chunk_id: str) -> Chunk | None:
        sql = f"SELECT {CHUNK_COLUMNS} FROM chunks WHERE chunk_id = ?"
        row = self._db.execute(sql, (chunk_id,)).fetchone()
        return None if row is None else chunk_from_row(row)

    def tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        sql = f"{TIE_KEYS_QUERY} WHERE c.chunk_key IN ({{marks}})"
        return {row[0]: (row[1], row[2], row[3]) for row in self._in_batches(sql, keys)}

    def iter_tie_keys(self) -> Iterator[tuple[int, TieKey]]:
        for row in self._db.execute(TIE_KEYS_QUERY):
            yield row[0], (row[1], row[2], row[3])

    def documents(self, document_ids: Sequence[str]) -> dict[str, Document]:
        sql = f"SELECT {self._columns} FROM documents WHERE document_id IN ({{marks}})"
        return {row[0]: document_from_row(row) for row in self._in_batches(sql, document_ids)}

    def source_counts(self) -> list[tuple[str, str, int]]:
        sql = (
            "SELECT root, source_class, count(*) FROM documents GROUP BY root, source_class "
            "ORDER BY root, source_class"
        )
        return [(str(r), str(c), int(n)) for r, c, n in self._db.execute(sql)]

    def iter_documents(self) -> Iterator[Document]:
        for row in self._db.execute(f"SELECT {self._columns} FROM documents ORDER BY root, source"):
            yield document_from_row(row)

    def iter_chunks(self) -> Iterator[Chunk]:
        sql = f"SELECT {CHUNK_COLUMNS} FROM chunks ORDER BY document_id, chunk_index"
        for row in self._db.execute(sql):
            yield chunk_from_row(row)

    def integrity_problems(self) -> list[str]:
        """SQLite's ``integrity_check``, then groundkit's consistency checks (adr/0023)."""
        damaged = sqlite_check(self._db, full=True)
        if damaged:  # the consistency queries would read damaged pages: report SQLite's view
            return [f"SQLite integrity_check: {problem}" for problem in damaged]
        embedding = self._embedding
        return integrity_problems(
            self._db,
            self._chunk_count,
            self._total_length,
            self._has_vectors,
            None if embedding is None else embedding.dimensions,
            version=self._schema_version,
        )

    def status(self) -> dict[str, Any]:
        db = self._db
        documents = db.execute("SELECT count(*) FROM documents").fetchone()[0]
        size = sum(p.stat().st_size for p in (self._path, Path(f"{self._path}-wal")) if p.exists())
        return {
            "location": str(self._path),
            "store": "sqlite",
            "schema_version": self._schema_version,  # the file's own (a v1 file read as is)
            "documents": documents,
            "chunks": self._chunk_count,
            "terms": db.execute("SELECT count(*) FROM terms").fetchone()[0],
            "generation": self._generation,
            "analyzer": self._analyzer,
            "embedding": None if self._embedding is None else self._embedding.to_dict(),
            "vectors": (
                db.execute("SELECT count(*) FROM vectors").fetchone()[0] if self._has_vectors else 0
            ),
            "size_bytes": size,
        }

    def close(self) -> None:
        with contextlib.suppress(sqlite3.Error):
            self._db.execute("ROLLBACK")
        self._db.close()

    def __enter__(self) -> SqliteReader:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
