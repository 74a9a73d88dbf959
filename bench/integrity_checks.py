"""What the integrity checks of adr/0023 cost on a built collection (one run, printed).

    python bench/core_collection.py --files 25000   # or any collection: ~100k chunks
    python bench/integrity_checks.py .groundkit/default/collection.sqlite

Times SQLite's quick_check and integrity_check, a writer's open (integrity_check; on a
schema-2 file also the checksum fill), ``groundkit check``, and, for the 200 most frequent
terms, fetching their postings with and without the df and checksum checks. A schema-2 file is
upgraded to schema 3 by the writer step. Nothing is asserted.
"""

from __future__ import annotations

import argparse
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

from groundkit.collection import check_collection
from groundkit.store.sqlite import SqliteReader, SqliteStore
from groundkit.store.sqlite.schema import postings_checksum


def timed(label: str, action: Callable[[], object]) -> None:
    started = time.perf_counter()
    action()
    print(f"{label:<60} {time.perf_counter() - started:8.2f} s", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("collection_file", type=Path)
    path = parser.parse_args().collection_file
    db = sqlite3.connect(path)
    chunks = db.execute("SELECT count(*) FROM chunks").fetchone()[0]
    postings = db.execute("SELECT count(*) FROM postings").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    print(
        f"{path}: {path.stat().st_size >> 20} MiB, {chunks} chunks, {postings} postings, "
        f"schema {version}"
    )
    timed("read the file once (page cache)", path.read_bytes)
    timed("PRAGMA quick_check", lambda: db.execute("PRAGMA quick_check").fetchall())
    timed("PRAGMA integrity_check", lambda: db.execute("PRAGMA integrity_check").fetchall())
    db.close()
    timed(
        f"writer open (integrity_check{'; checksum fill' if version < 3 else ''})",
        lambda: SqliteStore(path).close(),
    )
    timed(
        "groundkit check (integrity_check + consistency)",
        lambda: check_collection(path.parent.parent, path.parent.name),
    )
    reader = SqliteReader(path)
    con = sqlite3.connect(path)
    terms = [r[0] for r in con.execute("SELECT term FROM terms ORDER BY df DESC LIMIT 200")]
    ids = [
        con.execute("SELECT term_id FROM terms WHERE term = ?", (t,)).fetchone()[0] for t in terms
    ]
    fetch = "SELECT chunk_key, tf FROM postings WHERE term_id = ?"
    rows = [con.execute(fetch, (i,)).fetchall() for i in ids]
    print(f"200 most frequent terms: {sum(map(len, rows))} postings")
    for _ in range(2):
        timed(
            "  fetch their postings (no checks)",
            lambda: [con.execute(fetch, (i,)).fetchall() for i in ids],
        )
        timed(
            "  reader.postings() (df and checksum checked)",
            lambda: [reader.postings(t) for t in terms],
        )
        timed("  the checksums alone", lambda: [postings_checksum(r) for r in rows])
    reader.close()
    con.close()


if __name__ == "__main__":
    main()
