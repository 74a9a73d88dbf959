"""Creating a collection file's schema, and upgrading an older one in place (one transaction)."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from groundkit.store.sqlite.schema import (
    APPLICATION_ID,
    CHECKSUM_COLUMN,
    CHECKSUM_MODULUS,
    EXTRACTOR_COLUMN,
    PAGE_SIZE,
    POSTING_TERM_SQL,
    SCHEMA,
    SCHEMA_VERSION,
    VECTORS_TABLE,
    check_stamps,
    pack_term_ids,
    term_ids_code,
    unpack_term_ids,
    user_version,
)

__all__ = ["create_schema", "upgrade_schema"]


def create_schema(db: sqlite3.Connection, path: Path) -> None:
    """Create the tables and stamp the file, unless another process did so meanwhile."""
    db.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # only takes effect on an empty file
    db.execute("BEGIN IMMEDIATE")
    try:
        if check_stamps(db, path):  # another process created it meanwhile
            db.execute("ROLLBACK")
            return
        for statement in SCHEMA.split(";"):
            if statement.strip():
                db.execute(statement)
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def upgrade_schema(db: sqlite3.Connection) -> None:
    """Version 1 -> 2: add the (empty) vectors table; 2 -> 3: add and fill the postings
    checksum of every term (one pass over the postings); 3 -> 4: add the (NULL) extractor
    column of documents; 4 -> 5: repack every chunk's term ids 4 bytes each (texts stay as
    they are: a plain text is valid in schema 5). Nothing else changes."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = user_version(db)
        if version == 1:
            db.execute(VECTORS_TABLE)
        if version in (1, 2):
            columns = {row[1] for row in db.execute("PRAGMA table_info(terms)")}
            if "checksum" not in columns:
                db.execute(CHECKSUM_COLUMN)
            db.execute(
                "UPDATE terms SET checksum = coalesce((SELECT sum("
                f"{POSTING_TERM_SQL}) FROM postings p WHERE p.term_id = terms.term_id), 0) "
                f"% {CHECKSUM_MODULUS}"
            )
        documents = {row[1] for row in db.execute("PRAGMA table_info(documents)")}
        if "extractor" not in documents:
            db.execute(EXTRACTOR_COLUMN)
        if version < 5:
            _narrow_term_ids(db, version)
        if version < SCHEMA_VERSION:
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise


def _narrow_term_ids(db: sqlite3.Connection, version: int) -> None:
    """Repack ``chunks.term_ids`` from schema ``version``'s layout to schema 5's, in place."""
    code = term_ids_code(version)
    db.create_function(
        "groundkit_repack", 1, lambda blob: pack_term_ids(unpack_term_ids(blob, code))
    )
    try:
        db.execute("UPDATE chunks SET term_ids = groundkit_repack(term_ids)")
    finally:
        db.create_function("groundkit_repack", 1, None)
