"""Turn a collection file this groundkit wrote into what schema 4 wrote, to test upgrades."""

from __future__ import annotations

import sqlite3
import zlib
from array import array


def as_schema_4(connection: sqlite3.Connection) -> None:
    """Term ids packed 8 bytes each and every text stored plain, as schema 4 had them."""

    def widen(blob: bytes) -> bytes:
        ids = array("I")
        ids.frombytes(blob)
        return array("q", ids).tobytes()

    def inflate(stored: str | bytes) -> str:
        return stored if isinstance(stored, str) else zlib.decompress(stored).decode("utf-8")

    connection.create_function("widen", 1, widen)
    connection.create_function("inflate", 1, inflate)
    connection.execute("UPDATE chunks SET term_ids = widen(term_ids), text = inflate(text)")
    connection.execute("PRAGMA user_version = 4")
