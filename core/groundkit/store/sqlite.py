"""The embedded default store: one SQLite file per collection (stdlib ``sqlite3``, WAL).

The file is stamped with ``application_id`` and ``user_version``; a foreign SQLite file or a
newer schema is refused before anything is written. Readers hold a read transaction for their
lifetime, which is what makes a retriever a snapshot. See adr/0002-storage.md.
"""

from __future__ import annotations

import contextlib
import sqlite3
from array import array
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from groundkit import codec
from groundkit.contracts import Chunk, Document
from groundkit.errors import IndexIdentityError, StorageError
from groundkit.manifest import EmbeddingIdentity
from groundkit.store.base import IndexedChunk, TieKey
from groundkit.store.binding import check_embedding_write, decode_manifest

__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SqliteReader", "SqliteStore"]

APPLICATION_ID = 0x47524B54  # "GRKT"
SCHEMA_VERSION = 2
"""1: lexical only. 2: adds the ``vectors`` table (a version-1 file is upgraded in place by the
first writer that opens it; readers read both). See adr/0009-dense-vectors-and-manifest.md."""
_BUSY_TIMEOUT_MS = 30_000
_WRITER_CACHE_KIB = 256 * 1024
_WAL_CHECKPOINT_PAGES = 16_384  # about 64 MiB of WAL at the default 4 KiB page
_BATCH = 500  # host parameters per IN (...) query, well under SQLite's limit
_TERM_CACHE_LIMIT = 1 << 20

_SCHEMA = """
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE documents (
    document_id TEXT PRIMARY KEY,
    root TEXT NOT NULL,
    source TEXT NOT NULL,
    source_class TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    fingerprint TEXT NOT NULL,
    char_count INTEGER NOT NULL,
    line_count INTEGER NOT NULL,
    generation INTEGER NOT NULL,
    UNIQUE (root, source)
);
CREATE TABLE chunks (
    chunk_key INTEGER PRIMARY KEY,
    chunk_id TEXT NOT NULL UNIQUE,
    document_id TEXT NOT NULL REFERENCES documents (document_id),
    chunk_index INTEGER NOT NULL,
    start_offset INTEGER NOT NULL,
    end_offset INTEGER NOT NULL,
    start_line INTEGER NOT NULL,
    end_line INTEGER NOT NULL,
    text TEXT NOT NULL,
    metadata TEXT NOT NULL,
    length INTEGER NOT NULL,
    term_ids BLOB NOT NULL
);
CREATE INDEX chunks_by_document ON chunks (document_id, chunk_index);
CREATE TABLE terms (term_id INTEGER PRIMARY KEY, term TEXT NOT NULL UNIQUE, df INTEGER NOT NULL);
CREATE TABLE postings (
    term_id INTEGER NOT NULL,
    chunk_key INTEGER NOT NULL,
    tf INTEGER NOT NULL,
    PRIMARY KEY (term_id, chunk_key)
) WITHOUT ROWID;
{vectors}
INSERT INTO meta (key, value) VALUES
    ('generation', '0'), ('chunk_count', '0'), ('total_length', '0');
"""

_VECTORS_TABLE = """
CREATE TABLE vectors (
    chunk_key INTEGER PRIMARY KEY REFERENCES chunks (chunk_key),
    vector BLOB NOT NULL
)"""
_SCHEMA = _SCHEMA.replace("{vectors}", _VECTORS_TABLE + ";")

_DOCUMENT_COLUMNS = (
    "document_id, source, root, content_hash, char_count, line_count, fingerprint, source_class"
)
_TIE_KEYS = (
    "SELECT c.chunk_key, d.content_hash, c.chunk_index, d.source FROM chunks c "
    "JOIN documents d ON d.document_id = c.document_id"
)
_CHUNK_COLUMNS = (
    "chunk_id, document_id, chunk_index, text, start_offset, end_offset, start_line, end_line, "
    "metadata"
)


def _document(row: Sequence[Any]) -> Document:
    return Document(*row)


def _chunk(row: Sequence[Any]) -> Chunk:
    return Chunk(
        chunk_id=row[0],
        document_id=row[1],
        chunk_index=row[2],
        text=row[3],
        start_offset=row[4],
        end_offset=row[5],
        start_line=row[6],
        end_line=row[7],
        metadata=codec.decode(row[8]),
    )


def _connect(path: Path) -> sqlite3.Connection:
    try:
        connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        connection.execute(f"PRAGMA busy_timeout = {_BUSY_TIMEOUT_MS}")
        return connection
    except sqlite3.Error as exc:
        raise StorageError(
            f"cannot open collection file {path}: {exc}; check the path and its permissions",
            subject=str(path),
        ) from exc


def _user_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def _check_stamps(connection: sqlite3.Connection, path: Path) -> bool:
    """True when the file is a groundkit collection we can read; False when it is empty."""
    try:
        app_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        raise StorageError(
            f"{path} is not a readable SQLite collection ({exc}); it may be corrupt or another "
            "kind of file: move it away and re-ingest",
            subject=str(path),
        ) from exc
    if app_id == 0 and version == 0 and tables == 0:
        return False
    if app_id != APPLICATION_ID:
        raise StorageError(
            f"{path} is an SQLite file that groundkit did not create (application_id "
            f"{app_id:#x}); refusing to touch it: choose another --index-dir or --collection",
            subject=str(path),
        )
    if version > SCHEMA_VERSION:
        raise StorageError(
            f"{path} has schema version {version}, newer than this groundkit understands "
            f"({SCHEMA_VERSION}); upgrade groundkit to open it",
            subject=str(path),
        )
    if version < 1:
        raise StorageError(
            f"{path} has an unfinished schema (version {version}); delete it and re-ingest",
            subject=str(path),
        )
    return True


def _batches(values: Sequence[Any]) -> Iterator[tuple[Sequence[Any], str]]:
    """``values`` in slices of ``_BATCH``, each with its ``?,?,...`` placeholders."""
    for i in range(0, len(values), _BATCH):
        batch = values[i : i + _BATCH]
        yield batch, ",".join("?" * len(batch))


class SqliteStore:
    """Writer of a collection file; creates it on first use."""

    def __init__(self, path: str | Path, *, create: bool = True) -> None:
        self._path = Path(path)
        if not create and not self._path.is_file():
            from groundkit.errors import CollectionNotFoundError

            raise CollectionNotFoundError(
                f"no collection at {self._path}; create it with `groundkit ingest PATH`",
                subject=str(self._path),
            )
        self._path.parent.mkdir(parents=True, exist_ok=True)
        self._db = _connect(self._path)
        self._term_ids_cache: dict[str, int] = {}
        self._cache_generation = -1
        self._batch_generation: int | None = None  # set while a batch() is open
        try:
            if not _check_stamps(self._db, self._path):
                self._create_schema()
            elif _user_version(self._db) < SCHEMA_VERSION:
                self._upgrade_schema()
            self._db.execute("PRAGMA journal_mode = WAL")
            self._db.execute("PRAGMA synchronous = NORMAL")
            # Postings inserts land all over the (term_id, chunk_key) B-tree: a page cache
            # that holds its hot part keeps a large ingest from re-reading pages from disk.
            self._db.execute(f"PRAGMA cache_size = -{_WRITER_CACHE_KIB}")
            # Each document rewrites pages all over the postings tree; checkpointing the WAL
            # less often writes a page hit by many documents back once, not once per document.
            self._db.execute(f"PRAGMA wal_autocheckpoint = {_WAL_CHECKPOINT_PAGES}")
            self._db.execute("PRAGMA foreign_keys = ON")
        except BaseException:
            self._db.close()
            raise

    def _create_schema(self) -> None:
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if _check_stamps(db, self._path):  # another process created it meanwhile
                db.execute("ROLLBACK")
                return
            for statement in _SCHEMA.split(";"):
                if statement.strip():
                    db.execute(statement)
            db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise

    def _upgrade_schema(self) -> None:
        """Version 1 -> 2: add the (empty) vectors table; a lexical collection stays as it was."""
        db = self._db
        db.execute("BEGIN IMMEDIATE")
        try:
            if _user_version(db) == 1:
                db.execute(_VECTORS_TABLE)
                db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
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
        row = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE root = ? AND source = ?",
            (root, source),
        ).fetchone()
        return None if row is None else _document(row)

    def find_document_by_id(self, document_id: str) -> Document | None:
        row = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE document_id = ?", (document_id,)
        ).fetchone()
        return None if row is None else _document(row)

    def documents_under(self, root: str) -> list[Document]:
        rows = self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE root = ? ORDER BY source", (root,)
        ).fetchall()
        return [_document(row) for row in rows]

    def write_document(
        self,
        document: Document,
        chunks: Sequence[IndexedChunk],
        *,
        analyzer_identity: Mapping[str, Any],
        embedding: EmbeddingIdentity | None = None,
        replaces: str | None = None,
    ) -> int:
        db = self._db
        self._begin()
        try:
            self._bind_analyzer(analyzer_identity)
            self._bind_embedding(embedding, chunks, replaces)
            if replaces is not None:
                self._delete_document(replaces)
            generation = self._bump_generation()
            db.execute(
                "INSERT INTO documents (document_id, root, source, source_class, content_hash, "
                "fingerprint, char_count, line_count, generation) VALUES (?,?,?,?,?,?,?,?,?)",
                (
                    document.document_id,
                    document.root,
                    document.source,
                    document.source_class,
                    document.content_hash,
                    document.fingerprint,
                    document.char_count,
                    document.line_count,
                    generation,
                ),
            )
            added_length = 0
            for item in chunks:
                added_length += item.length
                self._insert_chunk(item)
            self._add_counts(len(chunks), added_length)
            self._commit(generation)
        except BaseException:
            self._rollback()
            raise
        return generation

    def remove_document(self, document_id: str) -> int:
        self._begin()
        try:
            self._delete_document(document_id)
            generation = self._bump_generation()
            self._commit(generation)
        except BaseException:
            self._rollback()
            raise
        return generation

    @contextlib.contextmanager
    def batch(self) -> Iterator[None]:
        """Commit the writes made inside together, each document still atomic on its own.

        Every document is a savepoint in one transaction: a failing write rolls back only that
        document, and leaving the block (normally or by an exception) commits the documents
        finished so far. Pages shared by many documents (interior B-tree pages, the terms
        table) then reach the WAL once per batch rather than once per document.
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
            self._commit(generation)

    def _begin(self) -> None:
        """Start a document's write: a savepoint inside a batch, else a write transaction."""
        if self._batch_generation is not None:
            self._db.execute("SAVEPOINT document")
            return
        self._db.execute("BEGIN IMMEDIATE")
        if int(self._meta("generation") or 0) != self._cache_generation:
            self._term_ids_cache.clear()

    def _commit(self, generation: int) -> None:
        if self._batch_generation is not None:
            self._db.execute("RELEASE document")
            self._batch_generation = generation
            return
        self._db.execute("COMMIT")
        self._cache_generation = generation

    def _rollback(self) -> None:
        self._term_ids_cache.clear()
        if self._batch_generation is not None:
            self._db.execute("ROLLBACK TO document")
            self._db.execute("RELEASE document")
            return
        self._db.execute("ROLLBACK")
        self._cache_generation = -1

    def _bind_analyzer(self, identity: Mapping[str, Any]) -> None:
        wanted = codec.encode(dict(identity))
        stored = self._meta("analyzer")
        if stored is None:
            self._db.execute("INSERT INTO meta (key, value) VALUES ('analyzer', ?)", (wanted,))
        elif stored != wanted:
            raise IndexIdentityError(
                f"collection {self._path} was built with analyzer {stored}, not {wanted}; "
                "use the same analyzer options or ingest into another --collection",
                subject=str(self._path),
                expected=stored,
                found=wanted,
            )

    def _bind_embedding(
        self,
        embedding: EmbeddingIdentity | None,
        chunks: Sequence[IndexedChunk],
        replaces: str | None,
    ) -> None:
        other = self._db.execute(
            "SELECT 1 FROM documents WHERE document_id IS NOT ? LIMIT 1", (replaces,)
        ).fetchone()
        manifest = check_embedding_write(
            str(self._path),
            self._meta("embedding"),
            embedding,
            chunks,
            holds_other_documents=other is not None,
        )
        if manifest is not None:
            self._db.execute("INSERT INTO meta (key, value) VALUES ('embedding', ?)", (manifest,))

    def _bump_generation(self) -> int:
        self._db.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'generation'"
        )
        return int(self._meta("generation") or 0)

    def _add_counts(self, chunks: int, length: int) -> None:
        self._db.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'chunk_count'",
            (chunks,),
        )
        self._db.execute(
            "UPDATE meta SET value = CAST(value AS INTEGER) + ? WHERE key = 'total_length'",
            (length,),
        )

    def _term_ids(self, terms: Sequence[str]) -> list[int]:
        """Ids of ``terms`` (distinct), each document frequency raised by one.

        Unknown terms are looked up in batches and created with ids this writer assigns (it
        holds the write lock), instead of one upsert per term.
        """
        db = self._db
        cache = self._term_ids_cache
        if len(cache) > _TERM_CACHE_LIMIT:
            cache.clear()
        missing = [t for t in terms if t not in cache]
        for batch, marks in _batches(missing):
            for term, term_id in db.execute(
                f"SELECT term, term_id FROM terms WHERE term IN ({marks})", batch
            ):
                cache[term] = term_id
        new = [t for t in missing if t not in cache]
        if new:
            first = int(db.execute("SELECT coalesce(max(term_id), 0) + 1 FROM terms").fetchone()[0])
            rows = [(first + n, term) for n, term in enumerate(new)]
            db.executemany("INSERT INTO terms (term_id, term, df) VALUES (?, ?, 0)", rows)
            cache.update((term, term_id) for term_id, term in rows)
        ids = [cache[t] for t in terms]
        self._add_to_df(ids, 1)
        return ids

    def _add_to_df(self, term_ids: Sequence[int], delta: int) -> None:
        """Add ``delta`` to the df of each of ``term_ids`` (distinct): one statement per batch
        of ids rather than one per term."""
        for batch, marks in _batches(term_ids):
            self._db.execute(
                f"UPDATE terms SET df = df + ? WHERE term_id IN ({marks})", (delta, *batch)
            )

    def _insert_chunk(self, item: IndexedChunk) -> None:
        c = item.chunk
        terms = sorted(item.term_freqs)
        term_ids = self._term_ids(terms)
        cursor = self._db.execute(
            "INSERT INTO chunks (chunk_id, document_id, chunk_index, start_offset, end_offset, "
            "start_line, end_line, text, metadata, length, term_ids) "
            "VALUES (?,?,?,?,?,?,?,?,?,?,?)",
            (
                c.chunk_id,
                c.document_id,
                c.chunk_index,
                c.start_offset,
                c.end_offset,
                c.start_line,
                c.end_line,
                c.text,
                codec.encode(dict(c.metadata)),
                item.length,
                array("q", term_ids).tobytes(),
            ),
        )
        key = cursor.lastrowid
        self._db.executemany(
            "INSERT INTO postings (term_id, chunk_key, tf) VALUES (?, ?, ?)",
            [(tid, key, item.term_freqs[t]) for tid, t in zip(term_ids, terms, strict=True)],
        )
        if item.vector is not None:
            self._db.execute(
                "INSERT INTO vectors (chunk_key, vector) VALUES (?, ?)", (key, item.vector)
            )

    def _delete_document(self, document_id: str) -> None:
        db = self._db
        rows = db.execute(
            "SELECT chunk_key, length, term_ids FROM chunks WHERE document_id = ?", (document_id,)
        ).fetchall()
        removed_length = 0
        for key, length, blob in rows:
            removed_length += length
            term_ids = array("q")
            term_ids.frombytes(blob)
            db.executemany(
                "DELETE FROM postings WHERE term_id = ? AND chunk_key = ?",
                [(tid, key) for tid in term_ids],
            )
            self._add_to_df(term_ids.tolist(), -1)
        db.execute("DELETE FROM terms WHERE df <= 0")
        self._term_ids_cache.clear()
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

    def __enter__(self) -> SqliteStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class SqliteReader:
    """A snapshot: a read transaction held open from construction to ``close()``."""

    def __init__(self, path: str | Path) -> None:
        self._path = Path(path)
        if not self._path.is_file():
            from groundkit.errors import CollectionNotFoundError

            raise CollectionNotFoundError(
                f"no collection at {self._path}; create it with `groundkit ingest PATH`",
                subject=str(self._path),
            )
        self._db = _connect(self._path)
        try:
            if not _check_stamps(self._db, self._path):
                raise StorageError(
                    f"{self._path} is an empty SQLite file, not a collection; delete it and "
                    "re-ingest",
                    subject=str(self._path),
                )
            self._db.execute("BEGIN")
            meta = dict(self._db.execute("SELECT key, value FROM meta").fetchall())
            self._schema_version = _user_version(self._db)
            self._has_vectors = self._schema_version >= 2
        except sqlite3.DatabaseError as exc:
            self._db.close()
            raise StorageError(
                f"collection {self._path} cannot be read ({exc}); it may be corrupt: re-ingest",
                subject=str(self._path),
            ) from exc
        except BaseException:
            self._db.close()
            raise
        self._generation = int(meta.get("generation", 0))
        self._chunk_count = int(meta.get("chunk_count", 0))
        self._total_length = int(meta.get("total_length", 0))
        raw = meta.get("analyzer")
        self._analyzer = None if raw is None else dict(codec.decode(raw))
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
        yield from self._db.execute("SELECT chunk_key, length FROM chunks")

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        row = self._db.execute("SELECT term_id FROM terms WHERE term = ?", (term,)).fetchone()
        if row is None:
            return ()
        return self._db.execute(
            "SELECT chunk_key, tf FROM postings WHERE term_id = ?", (row[0],)
        ).fetchall()

    def _in_batches(self, sql: str, values: Sequence[Any]) -> Iterator[Sequence[Any]]:
        for batch, marks in _batches(values):
            yield from self._db.execute(sql.format(marks=marks), tuple(batch))

    def chunks(self, keys: Sequence[int]) -> dict[int, Chunk]:
        sql = f"SELECT chunk_key, {_CHUNK_COLUMNS} FROM chunks WHERE chunk_key IN ({{marks}})"
        return {row[0]: _chunk(row[1:]) for row in self._in_batches(sql, keys)}

    def tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        sql = f"{_TIE_KEYS} WHERE c.chunk_key IN ({{marks}})"
        return {row[0]: (row[1], row[2], row[3]) for row in self._in_batches(sql, keys)}

    def iter_tie_keys(self) -> Iterator[tuple[int, TieKey]]:
        for row in self._db.execute(_TIE_KEYS):
            yield row[0], (row[1], row[2], row[3])

    def documents(self, document_ids: Sequence[str]) -> dict[str, Document]:
        sql = f"SELECT {_DOCUMENT_COLUMNS} FROM documents WHERE document_id IN ({{marks}})"
        return {row[0]: _document(row) for row in self._in_batches(sql, document_ids)}

    def iter_documents(self) -> Iterator[Document]:
        for row in self._db.execute(
            f"SELECT {_DOCUMENT_COLUMNS} FROM documents ORDER BY root, source"
        ):
            yield _document(row)

    def iter_chunks(self) -> Iterator[Chunk]:
        sql = f"SELECT {_CHUNK_COLUMNS} FROM chunks ORDER BY document_id, chunk_index"
        for row in self._db.execute(sql):
            yield _chunk(row)

    def integrity_problems(self) -> list[str]:
        db = self._db
        problems: list[str] = []
        checks = {
            "chunk_count counter": ("SELECT count(*) FROM chunks", self._chunk_count),
            "total_length counter": (
                "SELECT coalesce(sum(length), 0) FROM chunks",
                self._total_length,
            ),
            "postings vs document frequencies": (
                "SELECT coalesce(sum(df), 0) FROM terms",
                db.execute("SELECT count(*) FROM postings").fetchone()[0],
            ),
        }
        for name, (sql, expected) in checks.items():
            actual = db.execute(sql).fetchone()[0]
            if actual != expected:
                problems.append(f"{name}: {actual} != {expected}")
        orphans = {
            "chunks without a document": "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
            "(SELECT 1 FROM documents d WHERE d.document_id = c.document_id)",
            "postings without a chunk": "SELECT count(*) FROM postings p WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.chunk_key = p.chunk_key)",
            "postings without a term": "SELECT count(*) FROM postings p WHERE NOT EXISTS "
            "(SELECT 1 FROM terms t WHERE t.term_id = p.term_id)",
        }
        if self._has_vectors:
            orphans["vectors without a chunk"] = (
                "SELECT count(*) FROM vectors v WHERE NOT EXISTS "
                "(SELECT 1 FROM chunks c WHERE c.chunk_key = v.chunk_key)"
            )
            if self._embedding is not None:
                orphans["chunks without a vector"] = (
                    "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                    "(SELECT 1 FROM vectors v WHERE v.chunk_key = c.chunk_key)"
                )
        for name, sql in orphans.items():
            count = db.execute(sql).fetchone()[0]
            if count:
                problems.append(f"{name}: {count}")
        return problems

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
