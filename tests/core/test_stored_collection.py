"""``StoredCollection``, a host's one handle on a stored collection, and ``ShardPlan``, a shard
engine's build (adr/0067): the same answers as the calls they replace, failing closed."""

from __future__ import annotations

import os
import pickle
from pathlib import Path

import pytest

import groundkit
from groundkit import (
    CollectionNotFoundError,
    ConfigurationError,
    CorruptCollectionError,
    ShardUnavailableError,
    StoredCollection,
)
from groundkit.extend import ShardPlan
from groundkit.shards import ingest_sharded

TEXTS = {
    "a/pumps.md": "# Pumps\n\nThe pump valve leaks near the meter.\n",
    "b/valves.md": "# Valves\n\nA water main valve for each zone.\n",
    "c/meters.md": "# Meters\n\nRead the flow meter by the main valve.\n",
    "d/pipes.md": "# Pipes\n\nPipes carry water from the pump to the zone.\n",
}


@pytest.fixture
def index(tmp_path: Path) -> Path:
    corpus = tmp_path / "corpus"
    for name, text in TEXTS.items():
        (corpus / name).parent.mkdir(parents=True, exist_ok=True)
        (corpus / name).write_text(text, encoding="utf-8")
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index, collection="one")
    ingest_sharded(corpus, shards=2, index_dir=index, collection="many")
    return index


def test_a_bad_name_is_refused_before_anything_is_read(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not allowed"):
        StoredCollection(tmp_path, "../up")
    assert groundkit.list_collections(tmp_path / "absent") == []


def test_an_ordinary_and_a_sharded_collection_answer_alike(index: Path) -> None:
    assert groundkit.list_collections(index) == ["many", "one"]
    one, many = StoredCollection(index, "one"), StoredCollection(index, "many")
    assert (one.sharded, many.sharded) == (False, True)
    assert many.shard_names() == ("shard-0000", "shard-0001")
    with pytest.raises(CollectionNotFoundError):
        one.shard_names()
    assert one.state() is not None and one.state() == one.state()
    assert many.state() is None  # no one file
    for stored in (one, many):
        with stored.open() as searcher, groundkit.Searcher.open(index, stored.name) as direct:
            assert stored.generation() == searcher.generation == direct.generation
            hits = [r.chunk_id for r in searcher.search("water valve").results]
            assert hits == [r.chunk_id for r in direct.search("water valve").results]
        status = stored.status()
        assert status["generation"] == stored.generation()
        assert status["chunks"] >= len(TEXTS)
        generation, audit = stored.verify()
        assert generation == stored.generation()
        assert audit.ok and audit.checked == status["chunks"]
    assert many.status()["shards"] == 2
    assert one.status()["documents"] == len(TEXTS)


def test_an_engine_serves_shards_through_the_handle(index: Path) -> None:
    from groundkit.retrieval.transport import LocalTransport

    many = StoredCollection(index, "many")
    scorers = [many.open_shard(n) for n in range(len(many.shard_names()))]
    with many.searcher_over(LocalTransport(scorers)) as searcher, many.open() as here:
        got = searcher.search("pump meter").results
        assert [(r.chunk_id, r.score) for r in got] == [
            (r.chunk_id, r.score) for r in here.search("pump meter").results
        ]


def test_a_missing_shard_and_a_file_changed_outside_groundkit_are_refused(index: Path) -> None:
    many = StoredCollection(index, "many")
    shard = index / "many" / "shard-0001" / "collection.sqlite"
    shard.rename(shard.with_suffix(".gone"))
    with pytest.raises(ShardUnavailableError, match="shard-0001"):
        many.generation()
    one = StoredCollection(index, "one")
    path = index / "one" / "collection.sqlite"
    with path.open("ab") as handle:
        handle.write(b"\0" * 4096)  # changed, and by no writer
    with pytest.raises(CorruptCollectionError, match="changed outside groundkit"):
        one.generation()


def test_damage_found_by_a_checked_open_is_refused_until_the_file_changes(index: Path) -> None:
    one = StoredCollection(index, "one")
    path = index / "one" / "collection.sqlite"
    Path(f"{path}-sound").unlink()  # no stamp to compare: only the quick_check sees it
    sound = path.read_bytes()
    page = int.from_bytes(sound[16:18], "big")  # the header's page size
    damaged = bytearray(sound)
    for start in range(page, len(sound), page):
        damaged[start] = 0xFF  # no b-tree page has this type: the size stays the same
    path.write_bytes(bytes(damaged))
    with pytest.raises(CorruptCollectionError, match="quick_check"):
        one.open(checked=True)
    with pytest.raises(CorruptCollectionError, match="quick_check"):
        one.generation()  # the same file: refused without a connection
    damaged_at = path.stat().st_mtime_ns
    path.write_bytes(sound)  # restored, at another modification time: read again
    os.utime(path, ns=(damaged_at - 5_000_000_000, damaged_at - 5_000_000_000))
    assert one.generation() >= 1
    one.open(checked=True).close()


def test_a_shard_plan_builds_what_ingest_sharded_builds(index: Path, tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    plan = ShardPlan.make(corpus, collection="planned", shards=2, index_dir=index)
    assert pickle.loads(pickle.dumps(plan.resolved())) == plan.resolved()
    with pytest.raises(ConfigurationError, match="1 of 2 shards reported"):
        plan.seal([plan.ingest(0)])
    report = plan.seal([plan.ingest(shard) for shard in range(plan.shards)])
    built = StoredCollection(index, "planned")
    assert report.manifest.chunk_count == StoredCollection(index, "many").status()["chunks"]
    assert built.shard_names() == ("shard-0000", "shard-0001")
    with pytest.raises(ConfigurationError, match="has 2 shards, not 3"):
        ShardPlan.make(corpus, collection="planned", shards=3, index_dir=index)
    jsonl = tmp_path / "corpus.jsonl"
    jsonl.write_text('{"_id": "x", "text": "one"}\n\n{"id": 2, "text": "two"}\n', "utf-8")
    with pytest.raises(ConfigurationError, match="corpus-dir"):
        ShardPlan.make(jsonl, collection="j", shards=1, index_dir=index)
    from_jsonl = ShardPlan.make(
        jsonl, collection="j", shards=1, index_dir=index, corpus_dir=tmp_path / "files"
    )
    assert from_jsonl.jsonl == jsonl
    records = list(ShardPlan.read_jsonl(jsonl))
    assert ShardPlan.write_records(records, from_jsonl.corpus, str(jsonl)) == 2
    assert from_jsonl.seal([from_jsonl.ingest(0)]).manifest.chunk_count == 2
