"""The CLI: commands, JSON shapes, exit codes, help."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.cli import ExitCode, main

DOCS = {
    "pumps.md": "# Pumps\n\nThe pump station lifts water to the tank.\n",
    "valves.txt": "Valves control pressure in each zone of the network.\n",
}


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def index(tmp_path: Path) -> str:
    return str(tmp_path / "index")


def test_ingest_search_verify_status(
    capsys: pytest.CaptureFixture[str], write_corpus: WriteCorpus, index: str
) -> None:
    root = write_corpus(DOCS)
    code, out, _ = run(capsys, "ingest", str(root), "--index-dir", index)
    assert code == ExitCode.OK and "2 indexed" in out

    code, out, _ = run(capsys, "search", "pump", "--index-dir", index, "--json")
    assert code == ExitCode.OK
    payload = json.loads(out)
    assert set(payload) == {"query", "results", "total_results", "metadata"}
    assert payload["metadata"]["stage"] == "bm25"
    first = payload["results"][0]
    assert first["source"] == "pumps.md" and first["source_class"] == "text"
    assert set(first) >= {
        "content",
        "score",
        "document_id",
        "chunk_id",
        "start_offset",
        "end_offset",
        "start_line",
        "end_line",
        "metadata",
    }

    code, out, _ = run(capsys, "search", "pump", "--index-dir", index, "--verify")
    assert code == ExitCode.OK and "pumps.md:1-3" in out and "[verified]" in out

    code, out, _ = run(capsys, "verify", "--index-dir", index, "--json")
    assert code == ExitCode.OK and json.loads(out)["verified"] == 2

    code, out, _ = run(capsys, "verify", "--index-dir", index, "--chunk-id", first["chunk_id"])
    assert code == ExitCode.OK and "checked 1 citation:" in out

    code, out, _ = run(capsys, "status", "--index-dir", index, "--json")
    status = json.loads(out)
    assert code == ExitCode.OK
    assert (status["documents"], status["chunks"], status["generation"]) == (2, 2, 2)
    assert status["schema_version"] == 5 and status["analyzer"]["stemmer"] == "porter"
    assert status["size_bytes"] > 0


def test_verify_fails_when_a_source_drifted(
    capsys: pytest.CaptureFixture[str], write_corpus: WriteCorpus, index: str
) -> None:
    root = write_corpus(DOCS)
    run(capsys, "ingest", str(root), "--index-dir", index)
    (root / "valves.txt").write_text("Entirely different words now.\n", encoding="utf-8")
    code, out, _ = run(capsys, "verify", "--index-dir", index)
    assert code == ExitCode.NOT_VERIFIED and "1 drifted" in out


def test_exit_codes(
    capsys: pytest.CaptureFixture[str], write_corpus: WriteCorpus, index: str
) -> None:
    assert run(capsys, "search", "pump", "--index-dir", index)[0] == ExitCode.NO_COLLECTION
    assert run(capsys, "status", "--index-dir", index)[0] == ExitCode.NO_COLLECTION
    root = write_corpus({**DOCS, "bad.txt": b"\xff\xfe"})
    code, _, err = run(capsys, "ingest", str(root), "--index-dir", index)
    assert code == ExitCode.REFUSED_INPUT and "bad.txt" in err and "UTF-8" in err
    assert run(capsys, "ingest", str(root / "nope"), "--index-dir", index)[0] == (
        ExitCode.REFUSED_INPUT
    )
    code, _, err = run(capsys, "search", "", "--index-dir", index)
    assert code == ExitCode.USAGE and "empty" in err
    code, _, err = run(capsys, "search", "pump", "--index-dir", index, "--top-k", "0")
    assert code == ExitCode.USAGE and "top_k must be" in err and "(here top_k is --top-k)" in err
    code, _, err = run(capsys, "search", "pump", "--index-dir", index, "--score-threshold", "nan")
    assert code == ExitCode.USAGE and "score_threshold is --score-threshold" in err
    code, _, err = run(capsys, "search", "pump", "--index-dir", index, "--mode", "nope")
    assert code == ExitCode.USAGE and "invalid choice" in err
    assert run(capsys, "search", "pump", "--index-dir", index, "--k1", "-1")[0] == ExitCode.USAGE
    code, _, err = run(capsys, "search")
    assert code == ExitCode.USAGE and "usage: groundkit search" in err
    code, _, err = run(capsys, "frobnicate")
    assert code == ExitCode.USAGE and "invalid choice" in err


def test_bad_collection_name_is_a_usage_error(
    capsys: pytest.CaptureFixture[str], index: str
) -> None:
    code, _, err = run(capsys, "status", "--index-dir", index, "--collection", "../x")
    assert code == ExitCode.USAGE and "collection name" in err


def test_ingest_sample_and_search_it(capsys: pytest.CaptureFixture[str], index: str) -> None:
    code, out, _ = run(capsys, "ingest", "sample", "--index-dir", index, "--json")
    report = json.loads(out)
    assert code == ExitCode.OK and len(report["indexed"]) >= 30 and report["refused"] == []
    code, out, _ = run(capsys, "search", "report a leak", "--index-dir", index, "--verify")
    assert code == ExitCode.OK and "[verified]" in out


def test_help_teaches(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--help"])
    assert info.value.code == 0
    out = capsys.readouterr().out
    assert "examples:" in out and "exit codes" in out
    for command in ("ingest", "search", "verify", "status"):
        with pytest.raises(SystemExit):
            main([command, "--help"])
        assert "--index-dir" in capsys.readouterr().out


@pytest.mark.subprocess
def test_python_dash_m_runs_the_cli() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "groundkit", "--version"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0 and done.stdout.startswith("groundkit ")


@pytest.mark.subprocess
def test_a_closed_pipe_ends_the_output_quietly(index: str) -> None:
    assert main(["ingest", "sample", "--index-dir", index, "--quiet"]) == ExitCode.OK
    # every chunk of the sample: about 150 kB of JSON, more than a pipe buffers (64 kB), so
    # the writer is still writing when the reader leaves
    command = ["search", "water", "--top-k", "1000", "--index-dir", index, "--json"]
    reader = subprocess.Popen(
        [sys.executable, "-m", "groundkit", *command],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert reader.stdout is not None and reader.stderr is not None
    reader.stdout.readline()  # like `| head -1`
    reader.stdout.close()
    errors = reader.stderr.read().decode()
    assert reader.wait(timeout=60) == 141 and "Traceback" not in errors


def test_progress_reaches_a_log_when_stderr_is_not_a_terminal() -> None:
    """Long work prints a line every interval (rate, time left) to a pipe; short work nothing."""
    import io

    from groundkit.cli.render import ProgressBar
    from groundkit.ingestion import IngestProgress

    now = [0.0]
    stream = io.StringIO()
    bar = ProgressBar(stream, enabled=True, interval=10.0, clock=lambda: now[0])
    for done in range(1, 101):
        now[0] = done * 0.5  # two files a second: 50 s in all
        bar(IngestProgress(done=done, total=100, source=f"f{done}.md", outcome="indexed"))
    lines = stream.getvalue().splitlines()
    assert (
        len(lines) == 5 and lines[0] == "groundkit: 20/100 files (2.0/s, 10 s elapsed, ~40 s left)"
    )
    assert lines[-1].startswith("groundkit: 100/100 files")
    quick = io.StringIO()
    fast = ProgressBar(quick, enabled=True, interval=10.0, clock=lambda: 1.0)
    fast(IngestProgress(done=1, total=1, source="a.md", outcome="indexed"))
    assert quick.getvalue() == ""
