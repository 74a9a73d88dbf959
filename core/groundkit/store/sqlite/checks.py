"""Consistency checks of a collection file: counters, orphans, missing vectors."""

from __future__ import annotations

import sqlite3


def integrity_problems(
    db: sqlite3.Connection, chunk_count: int, total_length: int, has_vectors: bool, embedded: bool
) -> list[str]:
    """Disagreements between documents, chunks, postings and counters; empty when sound."""
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
    orphans = {
        "chunks without a document": "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
        "(SELECT 1 FROM documents d WHERE d.document_id = c.document_id)",
        "postings without a chunk": "SELECT count(*) FROM postings p WHERE NOT EXISTS "
        "(SELECT 1 FROM chunks c WHERE c.chunk_key = p.chunk_key)",
        "postings without a term": "SELECT count(*) FROM postings p WHERE NOT EXISTS "
        "(SELECT 1 FROM terms t WHERE t.term_id = p.term_id)",
    }
    if has_vectors:
        orphans["vectors without a chunk"] = (
            "SELECT count(*) FROM vectors v WHERE NOT EXISTS "
            "(SELECT 1 FROM chunks c WHERE c.chunk_key = v.chunk_key)"
        )
        if embedded:
            orphans["chunks without a vector"] = (
                "SELECT count(*) FROM chunks c WHERE NOT EXISTS "
                "(SELECT 1 FROM vectors v WHERE v.chunk_key = c.chunk_key)"
            )
    for name, sql in orphans.items():
        count = db.execute(sql).fetchone()[0]
        if count:
            problems.append(f"{name}: {count}")
    return problems
