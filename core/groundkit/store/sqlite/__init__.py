"""The embedded default store: one SQLite file per collection (stdlib ``sqlite3``, WAL).

Readers hold a read transaction for their lifetime, which is what makes a retriever a read view.
Schema and stamps (``schema``), the writer, the reader and the consistency checks each live in
their own module. See adr/0002-storage.md.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.store.sqlite.reader import SqliteReader
from groundkit.store.sqlite.schema import APPLICATION_ID, SCHEMA_VERSION

if TYPE_CHECKING:
    from groundkit.store.sqlite.writer import SqliteStore
else:

    def __getattr__(name: str) -> object:
        """``SqliteStore``, imported on first use: a search only reads (adr/0047)."""
        if name != "SqliteStore":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from groundkit.store.sqlite.writer import SqliteStore

        globals()[name] = SqliteStore
        return SqliteStore


__all__ = ["APPLICATION_ID", "SCHEMA_VERSION", "SqliteReader", "SqliteStore"]
