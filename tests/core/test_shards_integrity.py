"""A sharded collection is bound to its manifest: an altered manifest or a shard that is not
the one sealed is a damaged collection (exit 6), never a silently different answer (issue 29,
item 14)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from groundkit.analysis.analyzer import Analyzer
from groundkit.cli import main
from groundkit.collection import collection_file
from groundkit.errors import ShardMismatchError
from groundkit.retrieval import Searcher
from groundkit.shards import ingest_sharded, load_manifest, shard_of
from groundkit.shards.build import ingest_shard, seal_shards


def _corpus(root: Path, texts: list[str]) -> Path:
    corpus = root / "corpus"
    corpus.mkdir()
    for number, text in enumerate(texts):
        (corpus / f"doc{number:02d}.txt").write_text(text, encoding="utf-8")
    return corpus


def _built(tmp_path: Path, texts: list[str], shards: int = 2) -> tuple[Path, Path]:
    corpus = _corpus(tmp_path, texts)
    index = tmp_path / "index"
    ingest_sharded(corpus, shards=shards, index_dir=index, collection="many")
    return corpus, index


def _search_exit(index: Path, capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    code = main(["search", "pump", "--index-dir", str(index), "--collection", "many"])
    return code, capsys.readouterr().err


TEXTS = ["running pumps", "the valves leak", "pumping mains", "meter reading", "a zone valve"]


def test_a_shard_reingested_with_another_analyzer_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    corpus, index = _built(tmp_path, TEXTS)
    generation = load_manifest(index, "many").shards[0].generation
    collection_file(index / "many", "shard-0000").unlink()
    other = Analyzer(stemmer="none", stopwords="none")
    ingest_shard(corpus, 0, 2, index_dir=index, collection="many", analyzer=other)
    assert load_manifest(index, "many").shards[0].generation == generation  # same step count
    with pytest.raises(ShardMismatchError, match="analyzer identity"):
        Searcher.open(index, "many")
    code, err = _search_exit(index, capsys)
    assert code == 6 and "analyzer identity" in err


@pytest.mark.parametrize("edit", ["drop the last record", "empty the list"])
def test_an_altered_manifest_is_a_damaged_collection(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], edit: str
) -> None:
    _, index = _built(tmp_path, TEXTS, shards=3)
    path = index / "many" / "shards.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["shards"] = data["shards"][:-1] if edit == "drop the last record" else []
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ShardMismatchError, match="altered after it was sealed"):
        load_manifest(index, "many")
    code, err = _search_exit(index, capsys)
    assert code == 6 and "altered after it was sealed" in err


def test_a_resealed_manifest_without_a_shard_is_refused(tmp_path: Path) -> None:
    # a manifest rewritten consistently but listing fewer shards than the folder holds
    from groundkit.shards.shard_manifest import ShardManifest, save_manifest

    _, index = _built(tmp_path, TEXTS, shards=3)
    manifest = load_manifest(index, "many")
    fewer = ShardManifest(
        manifest.collection,
        manifest.shards[:2],
        manifest.analyzer,
        manifest.embedding,
        manifest.generation,
    )
    save_manifest(index, fewer)
    with pytest.raises(ShardMismatchError, match="shard-0002"):
        load_manifest(index, "many")


def test_a_shard_copied_over_another_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # two one-document shards alike in generation, chunk count and length: only the content
    # stamp tells them apart
    names = [f"doc{n:02d}.txt" for n in range(40)]
    first = next(n for n in names if shard_of(n, 2) == 0)
    second = next(n for n in names if shard_of(n, 2) == 1)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / first).write_text("pump valve", encoding="utf-8")
    (corpus / second).write_text("valve pump", encoding="utf-8")
    index = tmp_path / "index"
    manifest = ingest_sharded(corpus, shards=2, index_dir=index, collection="many").manifest
    a, b = manifest.shards
    assert (a.generation, a.chunk_count, a.total_length) == (
        b.generation,
        b.chunk_count,
        b.total_length,
    )
    folder = index / "many"
    shutil.copyfile(collection_file(folder, "shard-0000"), collection_file(folder, "shard-0001"))
    with pytest.raises(ShardMismatchError, match="content stamp"):
        Searcher.open(index, "many")
    code, err = _search_exit(index, capsys)
    assert code == 6 and "content stamp" in err
    with pytest.raises(ShardMismatchError, match="routing puts"):  # nor is it sealed so
        seal_shards(index, "many", 2)


def test_a_sound_sharded_collection_opens_and_reseals(tmp_path: Path) -> None:
    corpus, index = _built(tmp_path, TEXTS, shards=3)
    with Searcher.open(index, "many") as retriever:
        assert retriever.search("pump", 5).results
    (corpus / "doc00.txt").write_text("running pumps again", encoding="utf-8")
    again = ingest_sharded(corpus, index_dir=index, collection="many").manifest
    assert again.generation == 2 and load_manifest(index, "many") == again
    with Searcher.open(index, "many") as retriever:
        assert retriever.search("pump", 5).results


def test_a_manifest_whose_count_disagrees_with_its_records_is_refused(tmp_path: Path) -> None:
    from groundkit.shards.seal import manifest_seal

    _, index = _built(tmp_path, TEXTS, shards=2)
    path = index / "many" / "shards.json"
    data = json.loads(path.read_text(encoding="utf-8"))
    data["shards"] = []  # sealed anew, as by hand: still no answer from no shards
    data["seal"] = manifest_seal(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(ShardMismatchError, match="but records 2"):
        load_manifest(index, "many")


def test_a_shard_reingested_without_the_embedding_is_refused(tmp_path: Path) -> None:
    import groundkit

    corpus = _corpus(tmp_path, TEXTS)
    index = tmp_path / "index"
    hashing = groundkit.get_embedder("hash")
    ingest_sharded(corpus, shards=2, index_dir=index, collection="many", embedder=hashing)
    holding = next(n for n, s in enumerate(load_manifest(index, "many").shards) if s.chunk_count)
    collection_file(index / "many", f"shard-{holding:04d}").unlink()
    ingest_shard(corpus, holding, 2, index_dir=index, collection="many")  # lexical only
    with pytest.raises(ShardMismatchError, match="embedding identity"):
        Searcher.open(index, "many", embedder=hashing)
