"""A sharded search's trace reads as one collection's, and its similarity floor is one for all
shards (issue 19, adr/0028): shards that resolve different floors are refused, never one
shard's floor applied to all."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

import groundkit
from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval import Searcher
from groundkit.retrieval.floor import FloorRecord, write_floor
from groundkit.shards import ingest_sharded, load_manifest

SHARDS = 3
DIFFERENT_BY_DESIGN = {"timings_ms", "generation", "path", "accelerator"}
"""What a sharded trace reports its own way (adr/0028): the manifest's generation, and the
scoring paths each shard took (prefixed ``sharded:``) in place of one path and accelerator."""


def _index(tmp_path: Path, embedder: Any) -> Path:
    corpus = tmp_path / "corpus"
    shutil.copytree(groundkit.sample_corpus(), corpus)
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index, collection="one", embedder=embedder)
    ingest_sharded(corpus, shards=SHARDS, index_dir=index, collection="many", embedder=embedder)
    assert all(s.chunk_count for s in load_manifest(index, "many").shards)
    return index


def _trace(response: groundkit.SearchResponse) -> dict[str, Any]:
    return {k: v for k, v in response.metadata.items() if k not in DIFFERENT_BY_DESIGN}


def test_shard_trace_equals_one_collections(tmp_path: Path) -> None:
    index = _index(tmp_path, groundkit.get_embedder("hash"))
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        for query in ["report a leak", "pay my bill", "zebra quantum"]:
            for mode in (None, "bm25", "dense", "hybrid"):
                got, want = many.search(query, 5, mode), one.search(query, 5, mode)
                assert _trace(got) == _trace(want), (query, mode)
                if mode in ("dense", "hybrid"):
                    assert got.metadata["vector_store"] == want.metadata["vector_store"]
                if mode != "dense":
                    assert got.metadata["path"].startswith("sharded:")


class Unregistered:
    """A semantic embedder no registry knows: a search that names no mode falls back to bm25
    and says so (``mode_note``), in one collection and in a sharded one alike."""

    identity = EmbeddingIdentity(provider="acme", model="tiny", revision="1", dimensions=2)
    similarity_floor = 0.5

    def embed_documents(self, texts: list[str]) -> list[list[float]]:
        return [self.embed_query(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return [1.0, float(len(text) % 7)]


def test_shard_mode_note_when_the_embedder_is_missing(tmp_path: Path) -> None:
    index = _index(tmp_path, Unregistered())
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        got, want = many.search("report a leak", 5), one.search("report a leak", 5)
        assert got.metadata["mode"] == "bm25" and "not available" in got.metadata["mode_note"]
        assert _trace(got) == _trace(want)
        assert "mode_note" not in many.search("report a leak", 5, "bm25").metadata
    with (
        groundkit.Searcher.open(index, "one", embedder=Unregistered()) as one,
        Searcher.open(index, "many", embedder=Unregistered()) as many,
    ):
        got, want = many.search("report a leak", 5), one.search("report a leak", 5)
        assert got.metadata["mode"] == "hybrid" and "mode_note" not in got.metadata
        assert _trace(got) == _trace(want)


def _floor(index: Path, collection: str, floor: float) -> None:
    record = FloorRecord(floor, groundkit.get_embedder("hash").identity, {"note": "test"})
    write_floor(str(index / collection / "collection.sqlite"), record)


def test_shard_floor_is_one_for_all_shards_or_refused(tmp_path: Path) -> None:
    index = _index(tmp_path, groundkit.get_embedder("hash"))
    _floor(index, "many/shard-0001", -1.0)  # one shard calibrated, the others not
    with Searcher.open(index, "many") as many:
        for mode in ("dense", "hybrid"):
            with pytest.raises(ConfigurationError, match="different similarity floors") as raised:
                many.search("zebra quantum", 5, mode)
            assert "shard-0001: -1.0 (collection)" in str(raised.value)
            assert "shard-0000" in str(raised.value) and "(embedder)" in str(raised.value)
        assert many.search("zebra quantum", 5, "dense", min_similarity=-1).results  # given
        assert many.search("report a leak", 5, "bm25").results  # bm25 needs no floor
    for shard in ("many/shard-0000", "many/shard-0002", "one"):
        _floor(index, shard, -1.0)
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        got, want = (
            many.search("zebra quantum", 5, "dense"),
            one.search("zebra quantum", 5, "dense"),
        )
        assert got.metadata["floor_source"] == "collection" and got.metadata["min_similarity"] == -1
        assert [(r.chunk_id, r.score) for r in got.results] == [
            (r.chunk_id, r.score) for r in want.results
        ]
        assert _trace(got) == _trace(want)
