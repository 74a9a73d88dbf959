"""Sharded collections answer exactly as one collection over the same corpus (issue 19)."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import groundkit
from groundkit.config import ChunkerSettings, IngestSettings
from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    ShardUnavailableError,
)
from groundkit.retrieval import Searcher
from groundkit.shards import (
    ShardHit,
    ShardStatistics,
    ingest_sharded,
    load_manifest,
    merge_hits,
    reduce_statistics,
    shard_of,
)

VOCABULARY = ["pump", "valve", "leak", "meter", "pipe", "water", "flow", "rate", "main", "zone"]
SETTINGS = IngestSettings(chunker=ChunkerSettings(target_chars=64, overlap_chars=0))

words = st.sampled_from(VOCABULARY)
paragraph = st.lists(words, min_size=1, max_size=14).map(" ".join)
document = st.lists(paragraph, min_size=1, max_size=4).map("\n\n".join)
corpora = st.lists(document, min_size=1, max_size=14)
queries = st.lists(st.sampled_from([*VOCABULARY, "absent"]), min_size=1, max_size=4).map(" ".join)


def _write(root: Path, texts: list[str]) -> Path:
    corpus = root / "corpus"
    for number, text in enumerate(texts):
        path = corpus / f"part{number % 3}" / f"doc{number:03d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return corpus


def _answer(response: groundkit.SearchResponse) -> list[tuple[str, str, dict[str, object]]]:
    """Chunk id, score bits and the whole rest of each result (citation, metadata,
    highlights), in order: a sharded result must look exactly like one collection's."""
    return [(r.chunk_id, r.score.hex(), r.to_dict()) for r in response.results]


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=corpora,
    shards=st.integers(1, 5),
    searches=st.lists(st.tuples(queries, st.integers(1, 25)), min_size=1, max_size=6),
    accelerator=st.sampled_from(["python", "numpy"]),
)
def test_shard_search_is_bit_identical_to_one_collection(
    texts: list[str], shards: int, searches: list[tuple[str, int]], accelerator: str
) -> None:
    pytest.importorskip("numpy") if accelerator == "numpy" else None
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        corpus = _write(root, texts)
        index = root / "index"
        groundkit.ingest(corpus, index_dir=index, collection="one", settings=SETTINGS)
        ingest_sharded(corpus, shards=shards, index_dir=index, collection="many", settings=SETTINGS)
        with (
            groundkit.Searcher.open(index, "one") as one,
            Searcher.open(index, "many", accelerator=accelerator) as many,
        ):
            for query, k in searches:
                assert _answer(many.search(query, k)) == _answer(one.search(query, k))
                floor = 0.5
                assert _answer(many.search(query, k, score_threshold=floor)) == _answer(
                    one.search(query, k, score_threshold=floor)
                )


def test_shard_hybrid_and_dense_match_one_collection(tmp_path: Path) -> None:
    texts = [
        "pump valve leak\n\nmeter pipe water flow",
        "water main zone\n\nleak leak rate",
        "flow rate meter\n\npump pump zone main",
        "valve pipe\n\nwater water water",
        "zone main valve leak meter pipe",
    ]
    corpus = _write(tmp_path, texts)
    index = tmp_path / "index"
    hashing = groundkit.get_embedder("hash")
    groundkit.ingest(corpus, index_dir=index, collection="one", settings=SETTINGS, embedder=hashing)
    ingest_sharded(
        corpus, shards=3, index_dir=index, collection="many", settings=SETTINGS, embedder=hashing
    )
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        for query in ["leak meter", "water zone pump", "absent"]:
            for mode in ("dense", "hybrid"):
                got, want = many.search(query, 6, mode), one.search(query, 6, mode)
                assert _answer(got) == _answer(want)
                assert got.metadata.get("legs") == want.metadata.get("legs")


def test_shard_incremental_ingest_updates_the_global_statistics(tmp_path: Path) -> None:
    corpus = _write(tmp_path, ["pump valve", "valve leak", "meter pipe water", "leak"])
    index = tmp_path / "index"
    first = ingest_sharded(corpus, shards=2, index_dir=index, collection="many")
    assert first.manifest.generation == 1
    (corpus / "part1" / "doc001.txt").write_text("valve valve pump main", encoding="utf-8")
    (corpus / "part0" / "doc003.txt").unlink()
    (corpus / "part2" / "doc099.txt").parent.mkdir(exist_ok=True)
    (corpus / "part2" / "doc099.txt").write_text("zone main leak", encoding="utf-8")
    report = ingest_sharded(corpus, index_dir=index, collection="many")
    summary = report.to_dict()
    assert (summary["replaced"], summary["removed"], summary["indexed"]) == (1, 1, 1)
    assert report.manifest.generation == 2
    groundkit.ingest(corpus, index_dir=index, collection="one")
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        assert load_manifest(index, "many").chunk_count == one.reader.chunk_count
        assert load_manifest(index, "many").total_length == one.reader.total_length
        for query in ["valve", "leak main", "pump zone valve"]:
            assert _answer(many.search(query, 10)) == _answer(one.search(query, 10))


def test_shard_missing_fails_closed(tmp_path: Path) -> None:
    corpus = _write(tmp_path, ["pump valve", "valve leak", "meter pipe", "leak", "zone", "main"])
    index = tmp_path / "index"
    ingest_sharded(corpus, shards=3, index_dir=index, collection="many")
    (index / "many" / "shard-0001" / "collection.sqlite").unlink()
    with pytest.raises(ShardUnavailableError, match="shard-0001"):
        Searcher.open(index, "many")


def test_shard_changed_outside_a_sharded_ingest_is_refused(tmp_path: Path) -> None:
    corpus = _write(tmp_path, ["pump valve", "valve leak", "meter pipe", "leak"])
    index = tmp_path / "index"
    ingest_sharded(corpus, shards=2, index_dir=index, collection="many")
    other = tmp_path / "other"
    other.mkdir()
    (other / "x.txt").write_text("pump pump", encoding="utf-8")
    groundkit.ingest(other, index_dir=index / "many", collection="shard-0000")
    with pytest.raises(ShardUnavailableError, match="generation"):
        Searcher.open(index, "many")


def test_shard_manifest_errors(tmp_path: Path) -> None:
    with pytest.raises(CollectionNotFoundError):
        load_manifest(tmp_path, "none")
    corpus = _write(tmp_path, ["pump valve"])
    with pytest.raises(ConfigurationError, match="--shards"):
        ingest_sharded(corpus, index_dir=tmp_path / "index", collection="many")
    ingest_sharded(corpus, shards=2, index_dir=tmp_path / "index", collection="many")
    with pytest.raises(ConfigurationError, match="has 2 shards"):
        ingest_sharded(corpus, shards=3, index_dir=tmp_path / "index", collection="many")
    path = tmp_path / "index" / "many" / "shards.json"
    data = json.loads(path.read_text())
    data["routing"] = "hash()"
    path.write_text(json.dumps(data))
    with pytest.raises(ShardUnavailableError, match="not a shard manifest"):
        load_manifest(tmp_path / "index", "many")


def test_shard_routing_is_content_derived_and_stable() -> None:
    # fixed values: routing must never change between versions or platforms
    assert [shard_of(f"doc{n}.txt", 4) for n in range(8)] == [
        shard_of(f"doc{n}.txt", 4) for n in range(8)
    ]
    assert shard_of("a/b.txt", 1) == 0
    counts = [0] * 4
    for n in range(400):
        counts[shard_of(f"doc{n}.txt", 4)] += 1
    assert min(counts) > 60  # spread, not all in one shard
    with pytest.raises(ValueError):
        shard_of("x", 0)


def test_shard_reduce_refuses_partial_statistics() -> None:
    one = ShardStatistics(3, 10, {"pump": 1, "leak": 2})
    two = ShardStatistics(2, 5, {"pump": 2, "leak": 0})
    assert reduce_statistics([one, two]) == ShardStatistics(5, 15, {"leak": 2, "pump": 3})
    with pytest.raises(ShardUnavailableError):
        reduce_statistics([one, ShardStatistics(2, 5, {"pump": 2})])


def test_shard_merge_breaks_ties_by_content_key() -> None:
    a = [ShardHit(2.0, ("h2", 0, "b"), 0, 5), ShardHit(1.0, ("h9", 0, "z"), 0, 1)]
    b = [ShardHit(2.0, ("h1", 0, "a"), 1, 7), ShardHit(1.5, ("h3", 1, "c"), 1, 2)]
    assert [(h.shard, h.key) for h in merge_hits([a, b], 3)] == [(1, 7), (0, 5), (1, 2)]
    assert merge_hits([a, b], 0) == []


def test_shard_verify_gives_one_collections_verdicts(tmp_path: Path) -> None:
    """``verify`` of a sharded result (``Searcher.verify``, the one the service and Ray's
    tool use) re-reads the source through the shard holding it: one collection's verdicts,
    verified, drifted and unresolvable alike."""
    texts = ["pump valve leak\n\nmeter pipe", "water main leak", "leak rate zone", "leak flow"]
    corpus = _write(tmp_path, texts)
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index, collection="one", settings=SETTINGS)
    ingest_sharded(corpus, shards=3, index_dir=index, collection="many", settings=SETTINGS)
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):

        def verdicts(retriever: Searcher) -> list[tuple[str, str]]:
            results = retriever.search("leak", 10).results
            return [(r.citation.source, retriever.verify(r).verdict) for r in results]

        assert verdicts(many) == verdicts(one)
        assert [v for _, v in verdicts(many)] == ["verified"] * len(texts)
        (corpus / "part1" / "doc001.txt").write_text("water main drained", encoding="utf-8")
        (corpus / "part2" / "doc002.txt").unlink()
        got = dict(verdicts(many))
        assert verdicts(many) == verdicts(one)
        assert (got["part1/doc001.txt"], got["part2/doc002.txt"]) == ("drifted", "unresolvable")
