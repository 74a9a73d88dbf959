"""What a writer's open transaction has not written yet, and how it is written at its end.

Postings, document-frequency and checksum changes and counters are gathered per transaction
and written once, sorted, in few statements (adr/0030-ingest-speed.md)."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from itertools import chain
from operator import itemgetter

from groundkit.store.sqlite.schema import CHECKSUM_MODULUS, KEY_FACTOR, TERM_PRIME

__all__ = [
    "POSTINGS_PER_INSERT",
    "Pending",
    "add_counts",
    "insert_new_terms",
    "insert_postings",
    "term_changes",
]

POSTINGS_PER_INSERT = 300


class Pending:
    """What the open transaction has not written yet: postings, counter changes and its
    generation; where the open document's own begin (a savepoint's rollback drops them); and
    the identities and next term id read in it (forgotten on any rollback)."""

    __slots__ = (
        "_mark",
        "bound",
        "bumped",
        "chunks",
        "generation",
        "length",
        "new_terms",
        "next_term_id",
        "postings",
    )

    def __init__(self, generation: int) -> None:
        self.postings: list[tuple[int, int, int]] = []  # (term_id, chunk_key, tf)
        self.chunks = 0
        self.length = 0
        self.generation = generation
        self.bumped = False
        self.bound: dict[str, str | None] = {}
        self.next_term_id: int | None = None
        self.new_terms: dict[str, int] = {}  # terms this transaction created, not yet stored
        self._mark = (0, 0, 0, generation, False, 0)

    def mark(self) -> None:
        """A document begins: what follows is dropped by ``undo``."""
        self._mark = (
            len(self.postings),
            self.chunks,
            self.length,
            self.generation,
            self.bumped,
            len(self.new_terms),
        )

    def undo(self) -> None:
        """Drop what was added since ``mark`` (the document's write was rolled back)."""
        size, self.chunks, self.length, self.generation, self.bumped, terms = self._mark
        del self.postings[size:]
        for _ in range(len(self.new_terms) - terms):
            self.new_terms.popitem()  # the newest first

    def write(self, db: sqlite3.Connection) -> bool:
        """Write the new terms with their document frequency and checksum, the postings in key
        order, each older touched term's document frequency and checksum change in one
        statement, the counters and the generation; False when there was nothing to write.

        The writes are a savepoint of their own: if one fails, none of them is kept and they
        stay pending (a batch's commit tries again, or rolls back)."""
        if not self.postings and not self.chunks and not self.bumped:
            return False
        db.execute("SAVEPOINT flush")
        try:
            # Chunk keys only grow between two writes, so a stable sort on the term id
            # alone puts the postings in key order (five times faster than on the tuples).
            postings = sorted(self.postings, key=itemgetter(0))
            changes = term_changes(postings)
            if self.new_terms:
                changes = insert_new_terms(db, self.new_terms, changes)
            insert_postings(db, postings)
            db.executemany(
                "UPDATE terms SET df = df + ?, "
                f"checksum = (checksum + ?) % {CHECKSUM_MODULUS} WHERE term_id = ?",
                changes,
            )
            add_counts(db, self.chunks, self.length)
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
        return left  # its new terms are stored now: it starts with none


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


def insert_postings(db: sqlite3.Connection, postings: Sequence[tuple[int, int, int]]) -> None:
    """Insert ``postings`` with ``POSTINGS_PER_INSERT`` rows a statement (under a third of the
    oldest SQLite's 999 parameters): twice as fast as one row a statement."""
    n = POSTINGS_PER_INSERT
    whole = len(postings) - len(postings) % n
    many = "INSERT INTO postings (term_id, chunk_key, tf) VALUES " + ",".join(["(?,?,?)"] * n)
    db.executemany(
        many, (tuple(chain.from_iterable(postings[i : i + n])) for i in range(0, whole, n))
    )
    db.executemany(
        "INSERT INTO postings (term_id, chunk_key, tf) VALUES (?, ?, ?)", postings[whole:]
    )


def term_changes(postings: Sequence[tuple[int, int, int]]) -> list[tuple[int, int, int]]:
    """Per term of ``postings`` (sorted by term): (count, checksum part, term_id)."""
    changes: list[tuple[int, int, int]] = []
    current, count, total = -1, 0, 0
    factor, prime = KEY_FACTOR, TERM_PRIME
    for tid, key, tf in postings:
        if tid != current:
            if count:
                changes.append((count, total % CHECKSUM_MODULUS, current))
            current, count, total = tid, 0, 0
        count += 1
        total += (key * factor + tf) % prime  # posting_term(key, tf), inlined
    if count:
        changes.append((count, total % CHECKSUM_MODULUS, current))
    return changes
