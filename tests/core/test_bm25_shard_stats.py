"""The BM25 hook for collection-wide statistics (a shard scored as part of the whole)."""

from __future__ import annotations

from pathlib import Path

import pytest

import groundkit
from groundkit.index.bm25 import BM25Index
from groundkit.index.stats import CollectionStats
from groundkit.index.ties import CachedTieKeys
from groundkit.store.memory import MemoryStore


@pytest.mark.parametrize("accelerator", ["python", "numpy"])
def test_bm25_shard_stats_hook_is_bit_identical_with_own_statistics(
    accelerator: str, tmp_path: Path
) -> None:
    if accelerator == "numpy":
        pytest.importorskip("numpy")
    store = MemoryStore()
    corpus = {"a.txt": "pump valve leak leak", "b.txt": "water main", "c.txt": "leak zone main"}
    root = tmp_path
    for name, text in corpus.items():
        (root / name).write_text(text, encoding="utf-8")
    groundkit.Indexer(store).ingest(root)
    reader = store.reader()
    own = BM25Index(reader, accelerator=accelerator)  # type: ignore[arg-type]
    stats = CollectionStats(reader.chunk_count, reader.total_length, own.local_df)
    hooked = BM25Index(reader, accelerator=accelerator, stats=stats)  # type: ignore[arg-type]
    terms = ["leak", "main", "pump", "leak"]
    assert hooked.score(terms) == own.score(terms)
    ties = CachedTieKeys.of(reader)
    assert hooked.top_k(terms, 3, ties).pairs() == own.top_k(terms, 3, ties).pairs()
    # a larger collection's statistics change the scores (the hook is used)
    bigger = CollectionStats(reader.chunk_count * 10, reader.total_length * 10, own.local_df)
    assert BM25Index(reader, stats=bigger).score(terms) != own.score(terms)
