"""The writer's side of the ``terms`` table: ids for terms, and their df and checksum changes.

A writer keeps term -> id of the stored terms and of those its transaction created
(``TermIds``); a lookup that misses gives the term a new id, so it is made only when a miss is
known to be new: every term of the file is cached, or the stored ones were just read.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence

from groundkit.memo import Memo
from groundkit.store.sqlite.pending import Pending
from groundkit.store.sqlite.schema import CHECKSUM_MODULUS, TERM_CACHE_LIMIT, batches

__all__ = ["TermIds", "add_to_checksums", "add_to_df"]


class TermIds:
    """Term ids for one writer's connection; ``pending`` gives its open transaction's rows."""

    def __init__(self, db: sqlite3.Connection, pending: Callable[[], Pending]) -> None:
        self._db = db
        self._pending = pending
        self._cache: Memo[str, int] = Memo(self._new_term_id)
        self.complete = False  # the cache holds every term of the file

    def forget(self, *, complete: bool = False) -> None:
        """Drop what is cached (another writer may have written, or a write rolled back);
        ``complete``: the file holds no term, so the empty cache holds them all."""
        self._cache.clear()
        self.complete = complete

    def ids(self, terms: Sequence[str]) -> list[int]:
        """Ids of ``terms`` (distinct; their document frequencies are raised by the flush).

        Unknown terms are looked up in batches, unless the cache is known to hold every term
        of the file; the rest get ids this writer assigns (``_new_term_id``, as the cache's
        lookup misses them) and are stored by the flush with their document frequency,
        instead of one upsert per term."""
        cache = self._cache
        if len(cache) > TERM_CACHE_LIMIT:
            cache.clear()
            self.complete = False
        if not self.complete:
            ids = list(map(cache.get, terms))
            if None not in ids:
                return ids  # type: ignore[return-value]  # every term known: the usual case
            self._look_up_terms([t for t in terms if t not in cache])
        return list(map(cache.__getitem__, terms))

    def _look_up_terms(self, missing: list[str]) -> None:
        """Cache the ids of those of ``missing`` that are stored, or that this transaction
        created: each left out is new."""
        cache, new_terms = self._cache, self._pending().new_terms
        for batch, marks in batches(missing):
            for term, term_id in self._db.execute(
                f"SELECT term, term_id FROM terms WHERE term IN ({marks})", batch
            ):
                cache[term] = term_id
        for term in missing:  # created earlier in this transaction, not stored yet
            if term not in cache and term in new_terms:
                cache[term] = new_terms[term]

    def _new_term_id(self, term: str) -> int:
        """An id for ``term``, which the file does not hold: past every stored and pending
        one (this writer holds the write lock; the stored maximum is read once per
        transaction)."""
        pending = self._pending()
        term_id = pending.next_term_id
        if term_id is None:
            found = self._db.execute("SELECT coalesce(max(term_id), 0) + 1 FROM terms")
            term_id = max(int(found.fetchone()[0]), max(pending.new_terms.values(), default=0) + 1)
        pending.next_term_id = term_id + 1
        pending.new_terms[term] = term_id
        return term_id


def add_to_df(db: sqlite3.Connection, term_ids: Sequence[int], delta: int) -> None:
    """Add ``delta`` to the df of each of ``term_ids`` (distinct): one statement per batch
    of ids rather than one per term."""
    for batch, marks in batches(term_ids):
        db.execute(f"UPDATE terms SET df = df + ? WHERE term_id IN ({marks})", (delta, *batch))


def add_to_checksums(db: sqlite3.Connection, parts: Sequence[tuple[int, int]], sign: int) -> None:
    """Add (``sign`` 1) or take away (-1) postings' parts of their terms' checksums."""
    db.executemany(
        f"UPDATE terms SET checksum = (checksum + ?) % {CHECKSUM_MODULUS} WHERE term_id = ?",
        [(part if sign > 0 else CHECKSUM_MODULUS - part, tid) for tid, part in parts],
    )
