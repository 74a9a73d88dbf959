"""``groundkit shard build|search|status`` (issue 19): each one library call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import groundkit
from groundkit.cli import main


def _corpus(root: Path) -> Path:
    corpus = root / "docs"
    corpus.mkdir()
    texts = ["report a leak", "water main pressure", "leak in the main", "meter reading", "boil"]
    for number, text in enumerate(texts):
        (corpus / f"d{number}.txt").write_text(text, encoding="utf-8")
    return corpus


def test_cli_shard_build_search_status(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    corpus = _corpus(tmp_path)
    index = str(tmp_path / "index")
    common = ["--index-dir", index, "--collection", "big"]
    assert main(["shard", "build", str(corpus), "--shards", "3", *common, "--json"]) == 0
    built = json.loads(capsys.readouterr().out)
    assert (built["shards"], built["indexed"], built["chunk_count"]) == (3, 5, 5)
    assert main(["search", "leak main", *common, "--json", "--verify"]) == 0
    found = json.loads(capsys.readouterr().out)
    groundkit.ingest(corpus, index_dir=index, collection="one")
    with groundkit.Searcher.open(index, "one") as one:
        want = one.search("leak main")
    assert [(r["chunk_id"], r["score"]) for r in found["results"]] == [
        (r.chunk_id, r.score) for r in want.results
    ]
    assert main(["shard", "status", *common, "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["chunk_count"] == 5 and len(status["shards"]) == 3


def test_cli_shard_errors_exit_codes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = ["--index-dir", str(tmp_path / "index"), "--collection", "big"]
    assert main(["search", "leak", *index]) == 3  # no such sharded collection
    corpus = _corpus(tmp_path)
    assert main(["shard", "build", str(corpus), *index]) == 2  # --shards needed
    assert "--shards" in capsys.readouterr().err
    jsonl = tmp_path / "c.jsonl"
    jsonl.write_text('{"_id": "x", "text": "leak"}\n', encoding="utf-8")
    assert main(["shard", "build", str(jsonl), "--shards", "2", *index]) == 2
    assert "--corpus-dir" in capsys.readouterr().err
    corpus_dir = str(tmp_path / "files")
    assert (
        main(["shard", "build", str(jsonl), "--shards", "2", "--corpus-dir", corpus_dir, *index])
        == 0
    )
    assert main(["search", "leak", *index, "--verify"]) == 0
    assert "[verified]" in capsys.readouterr().out


def test_cli_shard_build_calibrates_every_shard_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``shard build`` records one "nothing here" bar beside every shard, the bar one
    collection of the same corpus records; ``--no-calibrate`` records none (adr/0072)."""
    sample = str(groundkit.sample_corpus())
    index = ["--index-dir", str(tmp_path / "index"), "--json"]
    assert main(["shard", "build", sample, "--shards", "3", "--collection", "many", *index]) == 0
    sharded = json.loads(capsys.readouterr().out)["calibration"]["bm25"]
    assert main(["ingest", sample, "--collection", "one", *index]) == 0
    one = json.loads(capsys.readouterr().out)["calibration"]["bm25"]
    del sharded["generation"], one["generation"]  # the manifest's and the collection's own
    assert sharded == one and sharded["separates"] is True
    bars = sorted((tmp_path / "index" / "many").glob("shard-*/lexical-bar.json"))
    assert len(bars) == 3 and len({bar.read_text(encoding="utf-8") for bar in bars}) == 1
    args = ["shard", "build", sample, "--shards", "2", "--collection", "bare", "--no-calibrate"]
    assert main([*args, *index]) == 0
    assert json.loads(capsys.readouterr().out)["calibration"] is None
    assert not list((tmp_path / "index" / "bare").glob("shard-*/lexical-bar.json"))
