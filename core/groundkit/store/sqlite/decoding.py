"""Whether every stored value decodes as a search would decode it.

SQLite's checks look at pages and indexes, not at what a row means: a chunk text that is not
UTF-8 (``UPDATE chunks SET text = text || X'FF'``), a compressed text that does not inflate,
metadata that is not JSON, a document row its contract refuses. A search that meets such a row
fails (the file is damaged, exit 6), so ``check`` and a writer must find it first. Text columns
are read as bytes and decoded here, so one bad row is counted, never raised from the cursor.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator, Sequence
from typing import Any

from groundkit import codec
from groundkit.errors import StorageError
from groundkit.store.identity_checks import decode_manifest
from groundkit.store.sqlite.schema import chunk_from_row, decode_text, document_from_row

__all__ = ["decode_problems", "meta_problems"]

_DOCUMENT_SQL = (
    "SELECT CAST(document_id AS BLOB), CAST(source AS BLOB), CAST(root AS BLOB), "
    "CAST(content_hash AS BLOB), char_count, line_count, CAST(fingerprint AS BLOB), "
    "CAST(source_class AS BLOB), {extractor} FROM documents"
)
_DOCUMENT_TEXTS = (0, 1, 2, 3, 6, 7, 8)
_CHUNK_SQL = (
    "SELECT CAST(chunk_id AS BLOB), CAST(document_id AS BLOB), chunk_index, "
    "CAST(text AS BLOB), start_offset, end_offset, start_line, end_line, "
    "CAST(metadata AS BLOB), typeof(text) FROM chunks"
)
_CHUNK_TEXTS = (0, 1, 8)
_COUNTERS = ("generation", "chunk_count", "total_length")


def _texts(row: Sequence[Any], columns: Sequence[int]) -> list[Any]:
    """``row`` with the byte strings at ``columns`` decoded as UTF-8 (UnicodeDecodeError)."""
    values = list(row)
    for column in columns:
        if isinstance(values[column], bytes):
            values[column] = values[column].decode("utf-8")
    return values


def _bad_rows(rows: Iterator[Sequence[Any]], decode: Any) -> int:
    bad = 0
    for row in rows:
        try:
            decode(row)
        except (ValueError, TypeError, UnicodeDecodeError):
            bad += 1
    return bad


def _document(row: Sequence[Any]) -> None:
    document_from_row(_texts(row, _DOCUMENT_TEXTS))


def _chunk(row: Sequence[Any]) -> None:
    values = _texts(row, _CHUNK_TEXTS)
    stored, kind = values[3], values.pop()
    values[3] = decode_text(stored) if kind == "blob" else bytes(stored).decode("utf-8")
    chunk_from_row(values)


def _term(row: Sequence[Any]) -> None:
    bytes(row[0]).decode("utf-8")


def decode_problems(db: sqlite3.Connection, *, version: int) -> list[str]:
    """Rows of documents, chunks and terms that do not decode (counts only, never the text)."""
    extractor = "CAST(extractor AS BLOB)" if version >= 4 else "NULL"
    passes = {
        "documents": (_DOCUMENT_SQL.format(extractor=extractor), _document),
        "chunks": (_CHUNK_SQL, _chunk),
        "terms": ("SELECT CAST(term AS BLOB) FROM terms", _term),
    }
    problems: list[str] = []
    for table, (sql, decode) in passes.items():
        bad = _bad_rows(db.execute(sql), decode)
        if bad:
            problems.append(f"{table} rows that do not decode (text not UTF-8, or invalid): {bad}")
    return problems


def meta_problems(db: sqlite3.Connection, location: str) -> list[str]:
    """Meta values a reader refuses: counters that are not integers, an analyzer identity or
    embedding manifest that does not decode."""
    meta: dict[str, str] = {}
    for key, value in db.execute("SELECT CAST(key AS BLOB), CAST(value AS BLOB) FROM meta"):
        try:
            meta[bytes(key).decode("utf-8")] = bytes(value).decode("utf-8")
        except (UnicodeDecodeError, TypeError):
            return ["meta table: a key or value is not UTF-8"]
    problems: list[str] = []
    for counter in _COUNTERS:
        try:
            int(meta.get(counter, "0"))
        except ValueError:
            problems.append(f"meta {counter}: not an integer")
    if "analyzer" in meta:
        try:
            dict(codec.decode(meta["analyzer"]))
        except (ValueError, TypeError):
            problems.append("meta analyzer: not an analyzer identity")
    try:
        decode_manifest(meta.get("embedding"), location)
    except StorageError:  # named as a problem, never raised from a check
        problems.append("meta embedding: not an embedding manifest")
    return problems
