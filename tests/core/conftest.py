"""Fixtures for the core tests: corpora on disk and both store kinds."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from groundkit.store import CollectionStore, MemoryStore
from groundkit.store.sqlite import SqliteStore

WriteCorpus = Callable[[dict[str, str | bytes]], Path]


@pytest.fixture
def write_corpus(tmp_path: Path) -> WriteCorpus:
    """Write ``{relative path: text or bytes}`` under ``tmp_path/corpus`` and return that folder."""
    root = tmp_path / "corpus"

    def write(files: dict[str, str | bytes]) -> Path:
        root.mkdir(exist_ok=True)
        for name, content in files.items():
            path = root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_bytes(content.encode("utf-8"))
        return root

    return write


@pytest.fixture(params=["sqlite", "memory"])
def store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[CollectionStore]:
    """Each store implementation in turn, empty."""
    made: CollectionStore
    if request.param == "sqlite":
        made = SqliteStore(tmp_path / "index" / "default" / "collection.sqlite")
    else:
        made = MemoryStore("test")
    yield made
    made.close()
