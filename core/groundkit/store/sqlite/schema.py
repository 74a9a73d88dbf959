"""The collection file's schema, stamps and row codecs (stdlib ``sqlite3``, WAL).

The file is stamped with ``application_id`` and ``user_version``; a foreign SQLite file or a
newer schema is refused before anything is written. See adr/0002-storage.md.
"""

from __future__ import annotations

import os
import sqlite3
import zlib
from array import array
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from groundkit import codec
from groundkit.contracts import Chunk, Document
from groundkit.errors import StorageError

APPLICATION_ID = 0x47524B54  # "GRKT"
SCHEMA_VERSION = 5
"""1: lexical only. 2: adds the ``vectors`` table (adr/0009). 3: adds ``terms.checksum``, a
checksum of each term's postings that every postings read is checked against (adr/0023).
4: adds ``documents.extractor``, the identity of an extracted document's extractor (adr/0021).
5: ``chunks.term_ids`` packs 4 bytes a term id (was 8), and a long ``chunks.text`` may be
stored zlib-compressed, as a BLOB (adr/0032). An older file is upgraded in place by the first
writer that opens it; readers read all."""
BUSY_TIMEOUT_MS = 30_000
PAGE_SIZE = 16_384
"""A new file's page size: chunk rows of a few KiB fill 16 KiB pages, not 4 KiB ones
(adr/0032); an existing file keeps its own."""
WRITER_CACHE_KIB = 256 * 1024
WAL_CHECKPOINT_PAGES = 4_096  # about 64 MiB of WAL at 16 KiB pages (256 MiB at 4 KiB)
BATCH = 500  # host parameters per IN (...) query, well under SQLite's limit
TERM_CACHE_LIMIT = 1 << 20
COMPRESS_FROM_CHARS = 200
COMPRESS_LEVEL = 1

SCHEMA = """
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
    extractor TEXT,
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
CREATE TABLE terms (
    term_id INTEGER PRIMARY KEY,
    term TEXT NOT NULL UNIQUE,
    df INTEGER NOT NULL,
    checksum INTEGER NOT NULL DEFAULT 0
);
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

VECTORS_TABLE = """
CREATE TABLE vectors (
    chunk_key INTEGER PRIMARY KEY REFERENCES chunks (chunk_key),
    vector BLOB NOT NULL
)"""
SCHEMA = SCHEMA.replace("{vectors}", VECTORS_TABLE + ";")

CHECKSUM_COLUMN = "ALTER TABLE terms ADD COLUMN checksum INTEGER NOT NULL DEFAULT 0"
CHECKSUM_MODULUS = (1 << 61) - 1  # a term's checksum: the sum of its postings' terms, mod this
KEY_FACTOR = 2654435761
TERM_PRIME = 4294967291  # each posting's term is below 2**32, so sums never overflow int64
POSTING_TERM_SQL = f"((chunk_key * {KEY_FACTOR} + tf) % {TERM_PRIME})"
"""SQL for one posting's checksum term: ``posting_term`` of its (chunk_key, tf)."""


def posting_term(chunk_key: int, tf: int) -> int:
    """One posting's part of its term's checksum: a change of its chunk key or tf changes it."""
    return (chunk_key * KEY_FACTOR + tf) % TERM_PRIME


def postings_checksum(rows: Sequence[tuple[int, int]]) -> int:
    """The checksum of a term's ``(chunk_key, tf)`` postings, as ``terms.checksum`` holds it."""
    return sum((key * KEY_FACTOR + tf) % TERM_PRIME for key, tf in rows) % CHECKSUM_MODULUS


DOCUMENT_COLUMNS = (
    "document_id, source, root, content_hash, char_count, line_count, fingerprint, source_class, "
    "extractor"
)
DOCUMENT_COLUMNS_V2 = DOCUMENT_COLUMNS.replace("extractor", "NULL")
"""What a reader selects from a file older than version 4 (no extractor column)."""
EXTRACTOR_COLUMN = "ALTER TABLE documents ADD COLUMN extractor TEXT"
TIE_KEYS_QUERY = (
    "SELECT c.chunk_key, d.content_hash, c.chunk_index, d.source FROM chunks c "
    "JOIN documents d ON d.document_id = c.document_id"
)
CHUNK_COLUMNS = (
    "chunk_id, document_id, chunk_index, text, start_offset, end_offset, start_line, end_line, "
    "metadata"
)


def document_from_row(row: Sequence[Any]) -> Document:
    return Document(*row)


def encode_text(text: str) -> str | bytes:
    """A chunk's text as stored: zlib-compressed bytes when that saves a tenth, else as is."""
    if len(text) < COMPRESS_FROM_CHARS:
        return text
    raw = text.encode("utf-8")
    packed = zlib.compress(raw, COMPRESS_LEVEL)
    return packed if len(packed) * 10 < len(raw) * 9 else text


def decode_text(stored: str | bytes) -> str:
    """The text ``encode_text`` stored; a BLOB that does not inflate to UTF-8 is a damaged row
    (ValueError, which the reader reports as a damaged file without quoting it)."""
    if isinstance(stored, str):
        return stored
    try:
        return zlib.decompress(stored).decode("utf-8")
    except (zlib.error, UnicodeDecodeError):
        raise ValueError("a stored compressed text does not decompress") from None


def term_ids_code(version: int) -> str:
    """The ``array`` type code of ``chunks.term_ids`` in a file of schema ``version``."""
    return "I" if version >= 5 else "q"


def pack_term_ids(term_ids: Sequence[int]) -> bytes:
    """``chunks.term_ids`` as schema 5 stores them (4 bytes each)."""
    try:
        return array("I", term_ids).tobytes()
    except OverflowError:
        raise StorageError(
            "a term id passed 2**32 - 1, which schema 5 cannot store; ingest into a new collection"
        ) from None


def unpack_term_ids(blob: bytes, code: str) -> array[int]:
    """The term ids of a ``chunks.term_ids`` blob packed with type ``code``."""
    ids = array(code)
    ids.frombytes(blob)
    return ids


def chunk_from_row(row: Sequence[Any]) -> Chunk:
    return Chunk(
        chunk_id=row[0],
        document_id=row[1],
        chunk_index=row[2],
        text=decode_text(row[3]),
        start_offset=row[4],
        end_offset=row[5],
        start_line=row[6],
        end_line=row[7],
        metadata=codec.decode(row[8]),
    )


def connect(path: Path, *, write: bool = False) -> sqlite3.Connection:
    """A connection to ``path``; a reader of a file it cannot write opens it read-only (and,
    in a read-only folder holding no write-ahead log, as immutable: nobody can write there)."""
    uri = None
    if not write and path.is_file():
        file_ro = not os.access(path, os.W_OK)
        folder_ro = not os.access(path.parent, os.W_OK)
        if file_ro or folder_ro:
            wal = Path(f"{path}-wal")
            immutable = folder_ro and not (wal.exists() and wal.stat().st_size)
            uri = f"{path.absolute().as_uri()}?mode=ro" + ("&immutable=1" if immutable else "")
    try:
        if uri is None:
            connection = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        else:
            connection = sqlite3.connect(
                uri, uri=True, isolation_level=None, check_same_thread=False
            )
        connection.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return connection
    except sqlite3.Error as exc:
        raise StorageError(
            f"cannot open collection file {path}: {exc}; check the path and its permissions",
            subject=str(path),
        ) from exc


def user_version(connection: sqlite3.Connection) -> int:
    return int(connection.execute("PRAGMA user_version").fetchone()[0])


def check_stamps(connection: sqlite3.Connection, path: Path) -> bool:
    """True when the file is a groundkit collection we can read; False when it is empty."""
    try:
        app_id = connection.execute("PRAGMA application_id").fetchone()[0]
        version = connection.execute("PRAGMA user_version").fetchone()[0]
        tables = connection.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
    except sqlite3.DatabaseError as exc:
        from groundkit.store.sqlite.guard import storage_error

        raise storage_error(exc, path) from None  # damaged, not SQLite, or not readable
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


def batches(values: Sequence[Any]) -> Iterator[tuple[Sequence[Any], str]]:
    """``values`` in slices of ``BATCH``, each with its ``?,?,...`` placeholders."""
    for i in range(0, len(values), BATCH):
        batch = values[i : i + BATCH]
        yield batch, ",".join("?" * len(batch))
