"""Checks of a collection file: SQLite's own (``quick_check``, ``integrity_check``) and
groundkit's consistency (counters, orphans, missing vectors, postings against chunks, every
stored value decoding as a search decodes it). A writer runs all of them before it writes, so
it never writes into a file that ``check`` (and search) would reject."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from groundkit.store.identity_checks import decode_manifest
from groundkit.store.sqlite.decoding import decode_problems, meta_problems
from groundkit.store.sqlite.guard import corrupt
from groundkit.store.sqlite.schema import (
    CHECKSUM_MODULUS,
    POSTING_TERM_SQL,
    term_ids_code,
    unpack_term_ids,
)

QUICK_CHECK_ROWS = 5
"""How many of SQLite's complaints an error message quotes."""
WRITE_CHECK = "integrity_check"
"""What a writer asks of SQLite before it writes into an existing file (adr/0023)."""


def sqlite_check(db: sqlite3.Connection, *, full: bool) -> list[str]:
    """SQLite's complaints about the file: ``integrity_check`` if ``full`` (indexes against
    their tables too), else ``quick_check`` (page and record structure); [] when sound."""
    pragma = "integrity_check" if full else "quick_check"
    try:
        rows = [str(row[0]) for row in db.execute(f"PRAGMA {pragma}")]
    except sqlite3.DatabaseError as exc:
        return [str(exc)]
    return [] if rows == ["ok"] else rows


def check_before_write(db: sqlite3.Connection, path: Path, *, version: int) -> None:
    """Raise ``CorruptCollectionError`` unless SQLite's ``WRITE_CHECK`` and groundkit's own
    checks (what ``groundkit check`` runs) find ``path`` sound: nothing is written then."""
    problems = sqlite_check(db, full=WRITE_CHECK == "integrity_check")
    if problems:
        shown = "; ".join(problems[:QUICK_CHECK_ROWS])
        raise corrupt(path, f"SQLite {WRITE_CHECK}: {shown}")
    problems = meta_problems(db, str(path))
    if not problems:
        meta = dict(db.execute("SELECT key, value FROM meta"))
        embedding = decode_manifest(meta.get("embedding"), str(path))
        problems = integrity_problems(
            db,
            int(meta.get("chunk_count", 0)),
            int(meta.get("total_length", 0)),
            version >= 2,
            None if embedding is None else embedding.dimensions,
            version=version,
        )
    if problems:
        shown = "; ".join(problems[:QUICK_CHECK_ROWS])
        raise corrupt(path, f"groundkit check: {shown}")


def integrity_problems(
    db: sqlite3.Connection,
    chunk_count: int,
    total_length: int,
    has_vectors: bool,
    dimensions: int | None,
    *,
    version: int,
) -> list[str]:
    """Disagreements between documents, chunks, postings, vectors and counters, and stored
    values that do not decode; empty when sound. ``dimensions``: the embedding's, if any."""
    problems: list[str] = []
    checks = {
        "chunk_count counter": ("SELECT count(*) FROM chunks", chunk_count),
        "total_length counter": (
            "SELECT coalesce(sum(length), 0) FROM chunks",
            total_length,
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
    orphans = {  # postings without a chunk or a term: found by postings_problems' passes
        "chunks without a document": "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
        "(SELECT 1 FROM documents d WHERE d.document_id = c.document_id)",
    }
    if has_vectors:
        orphans["vectors without a chunk"] = (
            "SELECT count(*) FROM vectors v WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.chunk_key = v.chunk_key)"
        )
        if dimensions is not None:
            orphans["vectors of another size than the embedding's"] = (
                "SELECT count(*) FROM vectors WHERE typeof(vector) != 'blob' "
                f"OR length(vector) != {4 * int(dimensions)}"
            )
            orphans["chunks without a vector"] = (
                "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.chunk_key = c.chunk_key)"
            )
    for name, sql in orphans.items():
        count = db.execute(sql).fetchone()[0]
        if count:
            problems.append(f"{name}: {count}")
    problems.extend(postings_problems(db, version=version))
    problems.extend(decode_problems(db, version=version))
    return problems


def postings_problems(db: sqlite3.Connection, *, version: int) -> list[str]:
    """Postings against what each term and chunk records, in two grouped passes over the
    postings (one per side; correlated lookups cost minutes at 100k chunks, adr/0023): per
    term, as many postings as its document frequency and (schema 3) their checksum; per
    chunk, postings for exactly its ``term_ids`` whose term frequencies sum to its ``length``;
    no postings of a term or chunk that does not exist."""
    problems: list[str] = []
    checksums = version >= 3  # schema 3 added terms.checksum
    checksum = f"sum({POSTING_TERM_SQL}) % {CHECKSUM_MODULUS}" if checksums else "NULL"
    by_term = {
        term_id: (count, total)
        for term_id, count, total in db.execute(
            f"SELECT term_id, count(*), {checksum} FROM postings GROUP BY term_id"
        )
    }
    stored = "checksum" if checksums else "NULL"
    wrong_df = wrong_sum = 0
    for term_id, df, total in db.execute(f"SELECT term_id, df, {stored} FROM terms"):
        count, found = by_term.pop(term_id, (0, 0 if checksums else None))
        wrong_df += count != df
        wrong_sum += found != total
    if wrong_df:
        problems.append(f"terms whose document frequency disagrees with their postings: {wrong_df}")
    if wrong_sum:
        problems.append(f"terms whose postings fail their checksum: {wrong_sum}")
    if by_term:
        problems.append(f"postings without a term: {sum(c for c, _ in by_term.values())}")
    by_chunk = {
        key: (count, tf_sum, id_sum)
        for key, count, tf_sum, id_sum in db.execute(
            "SELECT chunk_key, count(*), sum(tf), sum(term_id) FROM postings GROUP BY chunk_key"
        )
    }
    wrong = 0
    code = term_ids_code(version)
    for key, length, blob in db.execute("SELECT chunk_key, length, term_ids FROM chunks"):
        try:
            term_ids = unpack_term_ids(blob, code)
        except (ValueError, TypeError):  # not a packed array: it cannot match its postings
            wrong += 1
            continue
        expected = (len(term_ids), length, sum(term_ids)) if term_ids else None
        if by_chunk.pop(key, None) != expected:
            wrong += 1
    if wrong:
        problems.append(f"chunks whose postings disagree with their terms or length: {wrong}")
    if by_chunk:
        problems.append(f"postings without a chunk: {sum(c for c, _, _ in by_chunk.values())}")
    return problems
