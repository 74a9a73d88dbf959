"""The CLI's dense side: --embedder, --mode dense|hybrid, --rerank, status, and a killed writer."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import groundkit
from groundkit.cli import ExitCode, main
from groundkit.collection import open_reader


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_sample_with_the_hash_embedder_searches_in_every_mode(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    index = str(tmp_path / "index")
    code, out, _ = run(capsys, "ingest", "sample", "--embedder", "hash", "--index-dir", index)
    assert code == ExitCode.OK and "indexed" in out
    query = "how do I report a leak"
    for mode, stage in (("hybrid", "fusion"), ("dense", "dense"), ("bm25", "bm25")):
        code, out, _ = run(capsys, "search", query, "--mode", mode, "--index-dir", index, "--json")
        payload = json.loads(out)
        assert code == ExitCode.OK and payload["metadata"]["stage"] == stage
        assert payload["results"][0]["source"] == "customers/report-a-leak.md"
    code, out, _ = run(
        capsys, "search", query, "--mode", "hybrid", "--rrf-k", "10", "--depth", "20",
        "--index-dir", index, "--json",
    )  # fmt: skip
    assert json.loads(out)["metadata"]["fusion"]["rrf_k"] == 10
    # hash carries no meaning: without --mode its collection searches bm25 (adr/0025)
    code, out, _ = run(capsys, "search", query, "--index-dir", index, "--json")
    metadata = json.loads(out)["metadata"]
    assert (metadata["stage"], metadata["mode_source"]) == ("bm25", "collection")
    code, out, _ = run(capsys, "status", "--index-dir", index, "--json")
    status = json.loads(out)
    assert status["embedding"]["model"] == "hash" and status["embedding"]["semantic"] is False
    assert status["vectors"] == status["chunks"]
    code, out, _ = run(capsys, "ingest", "sample", "--index-dir", index)  # embedder resolved
    assert code == ExitCode.OK and "0 indexed" in out
    code, _, err = run(capsys, "search", "leak", "--rerank", "--index-dir", index)
    assert code == ExitCode.USAGE and "no reranker" in err
    # hybrid's "nothing here" names its own way to see what BM25 matched (adr/0079)
    hybrid = ("--mode", "hybrid", "--index-dir", index)
    code, out, _ = run(capsys, "search", "the purple elephant tap", *hybrid)
    assert out.startswith("nothing here for") and "--min-lexical-share 0 shows what" in out
    code, out, _ = run(
        capsys, "search", "the purple elephant tap", *hybrid, "--min-lexical-share", "0"
    )
    assert out.startswith(" 1. ")


def test_dense_on_a_lexical_collection_exits_non_zero_naming_the_fix(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    index = str(tmp_path / "index")
    assert run(capsys, "ingest", "sample", "--index-dir", index, "--quiet")[0] == ExitCode.OK
    code, out, err = run(capsys, "search", "leak", "--mode", "dense", "--index-dir", index)
    assert code == ExitCode.USAGE and out == ""
    assert "no dense side" in err and "--embedder minilm" in err
    code, _, err = run(capsys, "ingest", "sample", "--embedder", "hash", "--index-dir", index)
    assert code == ExitCode.ERROR and "already holds documents without vectors" in err


def test_an_unknown_embedder_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, _, err = run(
        capsys, "ingest", "sample", "--embedder", "nope", "--index-dir", str(tmp_path)
    )
    assert code == ExitCode.USAGE
    assert "'nope' is neither a registered name (hash, minilm) nor a model folder" in err
    assert not (tmp_path / ".groundkit").exists() and list(tmp_path.iterdir()) == []


@pytest.mark.subprocess
def test_a_writer_killed_mid_document_leaves_vectors_in_lockstep(tmp_path: Path) -> None:
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    corpus.mkdir()
    for n in range(40):  # three chunks each; the kill lands in the second commit group
        body = "\n\n".join(
            f"Paragraph {p} of file {n} about pumps and valves. " * 6 for p in range(8)
        )
        (corpus / f"f{n:02}.md").write_text(f"# File {n}\n\n{body}\n", encoding="utf-8")
    killer = """
        import os, signal, sys
        from groundkit.store.sqlite import SqliteStore
        calls = 0
        original = SqliteStore._insert_chunk
        def insert(self, item):
            global calls
            calls += 1
            original(self, item)  # this chunk's vector is written; the document is not finished
            if calls == 60:
                os.kill(os.getpid(), signal.SIGKILL)
        SqliteStore._insert_chunk = insert
        from groundkit.ingestion import indexer
        indexer.FILES_PER_COMMIT = 16  # small groups, so that some are committed before the kill
        from groundkit.cli import main
        main(["ingest", sys.argv[1], "--index-dir", sys.argv[2], "--embedder", "hash", "--quiet"])
    """
    parent = str(Path(groundkit.__file__).resolve().parent.parent)
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(killer), str(corpus), str(index)],
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": parent},
        check=False,
    )
    assert done.returncode == -9, done.stderr
    with open_reader(index) as reader:
        assert reader.integrity_problems() == []
        assert 0 < reader.status()["vectors"] == reader.chunk_count
    report = groundkit.ingest(corpus, index_dir=index)  # the manifest names the embedder
    assert report.ok and len(report.indexed) + len(report.unchanged) == 40
    with groundkit.Searcher.open(index) as retriever:
        assert retriever.search("pumps valves", mode="hybrid").total_results == 10


def test_a_refused_ingest_leaves_no_empty_collection_behind(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A missing extra or a missing source is refused before the collection file exists."""
    from groundkit.cli.commands import ingest as cli_ingest
    from groundkit.errors import ConfigurationError

    def missing_extra(name: str) -> object:
        raise ConfigurationError(f'embedder {name!r} needs pip install ".[onnx]"')

    monkeypatch.setattr(cli_ingest, "resolve_embedder", missing_extra)
    index = tmp_path / "index"
    code, _, err = run(capsys, "ingest", "sample", "--embedder", "hash", "--index-dir", str(index))
    assert code == ExitCode.USAGE and ".[onnx]" in err
    code, _, err = run(capsys, "ingest", str(tmp_path / "absent"), "--index-dir", str(index))
    assert code != ExitCode.OK and "no such file or directory" in err
    with pytest.raises(groundkit.IngestionError, match="no such file or directory"):
        groundkit.ingest(tmp_path / "absent", index_dir=index)
    assert not index.exists()


def test_calibrate_measures_records_and_sets_a_floor_that_searches_then_use(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    index = str(tmp_path / "index")
    assert run(capsys, "ingest", "sample", "--embedder", "hash", "--index-dir", index)[0] == 0
    on = tmp_path / "on.txt"
    on.write_text("how do I report a leak\nboil water notice\nchlorine residual target\n")
    off = tmp_path / "off.jsonl"
    off.write_text('{"text": "zebra quantum xylophone"}\n{"text": "recipe for chocolate cake"}\n')
    where = ("--index-dir", index)
    code, out, _ = run(capsys, "calibrate", "--queries", str(on), "--off-topic", str(off), *where)
    assert code == 0 and "not recorded" in out and "false abstention" in out
    code, out, _ = run(
        capsys, "calibrate", "--queries", str(on), "--off-topic", str(off), "--write", "--json",
        *where,
    )  # fmt: skip
    report = json.loads(out)
    assert code == 0 and report["recorded"] and report["embedding"]["model"] == "hash"
    assert report["false_abstention"] == report["false_answer"] == 0.0  # separable here
    code, out, _ = run(
        capsys, "search", "zebra quantum xylophone", "--mode", "dense", "--json", *where
    )
    payload = json.loads(out)
    assert payload["results"] == [] and payload["metadata"]["floor_source"] == "collection"
    assert payload["metadata"]["min_similarity"] == report["floor"]
    code, out, _ = run(capsys, "calibrate", "--set", "-1", "--json", *where)
    assert code == 0 and json.loads(out)["floor"] == -1.0
    code, out, _ = run(
        capsys, "search", "zebra quantum xylophone", "--mode", "dense", "--json", *where
    )
    assert json.loads(out)["results"]  # the user's own floor admits everything
    code, _, err = run(capsys, "calibrate", "--set", "2", *where)  # no cosine reaches it
    assert code == ExitCode.USAGE and "from -1 to 1" in err
    code, _, err = run(capsys, "calibrate", "--queries", str(on), *where)
    assert code == ExitCode.USAGE and "go together" in err
    code, _, err = run(capsys, "search", "leak", "--min-similarity", "0.2", *where)
    assert code == ExitCode.USAGE and "use score_threshold" in err and "--score-threshold)" in err
    lexical = str(tmp_path / "lexical")
    assert run(capsys, "ingest", "sample", "--index-dir", lexical, "--quiet")[0] == 0
    code, _, err = run(capsys, "calibrate", "--set", "0.3", "--index-dir", lexical)
    assert code == ExitCode.USAGE and "no dense side" in err
