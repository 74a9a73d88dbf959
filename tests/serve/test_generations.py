"""The service reads a collection's generation from its file only when the file changed
(adr/0057), and never remembers a read of files changed within the file system's tick."""

from __future__ import annotations

import os
import time
from pathlib import Path

import groundkit
from groundkit.store.sqlite.freshness import SETTLED_NS, GenerationCache


def _age(path: Path, seconds: float) -> None:
    past = time.time_ns() - int(seconds * 1e9)
    os.utime(path, ns=(past, past))


def test_a_settled_file_is_read_once_and_a_change_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "collection.sqlite"
    path.write_bytes(b"one")
    _age(path, 2 * SETTLED_NS / 1e9)
    reads: list[int] = []
    cache = GenerationCache()

    def read(value: int) -> int:
        reads.append(value)
        return value

    assert cache.generation(path, lambda: read(1)) == 1
    assert cache.generation(path, lambda: read(2)) == 1  # unchanged: remembered
    assert reads == [1]
    with path.with_name(path.name + "-wal").open("wb") as wal:  # a commit writes the log
        wal.write(b"frame")
    assert cache.generation(path, lambda: read(3)) == 3
    # just changed, so not remembered: a commit in the same tick would leave the same times
    assert cache.generation(path, lambda: read(4)) == 4
    assert reads == [1, 3, 4]


def test_a_server_sees_each_ingest_at_once(tmp_path: Path) -> None:
    from groundkit_serve import Runtime, ServeSettings

    corpus = tmp_path / "docs"
    corpus.mkdir()
    index = tmp_path / "index"
    runtime = Runtime(ServeSettings(index_dir=index))
    seen = []
    for version in range(3):
        (corpus / f"v{version}.md").write_text(f"version {version} here\n", encoding="utf-8")
        groundkit.ingest(corpus, index_dir=index)
        seen.append(runtime.probe("default"))
    with groundkit.Searcher.open(index) as retriever:
        assert seen[-1] == retriever.generation
    assert seen == sorted(set(seen))  # three commits, three generations, each seen at once
