"""Messages that say what to type (issue 42.4): a mistyped flag, a missing collection, ingest's
refusals and verify's failures grouped, an empty folder, ``sample`` in the help."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from groundkit.cli import ExitCode, main
from groundkit.ingestion import ingest


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def _docs(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "pumps.md").write_text("# Pumps\n\nThe pump station lifts water.\n\n" * 40)
    (root / "valves.txt").write_text("Valves control pressure in each zone.\n")
    return root


def test_a_mistyped_flag_names_the_closest_and_the_command_usage(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = run(capsys, "search", "leak", "--topk", "3")
    assert code == ExitCode.USAGE
    assert "--topk -> did you mean --top-k?" in err
    assert "usage: groundkit search" in err  # the command's usage, not the top-level one
    code, _, err = run(capsys, "search", "leak", "--topk=3", "--json")
    assert "did you mean --top-k?" in json.loads(err)["error"]["message"]
    code, _, err = run(capsys, "search", "leak", "--zzzzzz")
    assert code == ExitCode.USAGE and "did you mean" not in err
    code, _, err = run(capsys, "search", "leak", "--bogus")  # not BM25's --b
    assert code == ExitCode.USAGE and "did you mean" not in err


def test_no_collection_hints_carry_the_collection_asked_for(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    index = str(tmp_path / "idx")
    code, _, err = run(capsys, "search", "leak", "--collection", "handbook", "--index-dir", index)
    assert code == ExitCode.NO_COLLECTION
    assert f"`groundkit ingest PATH --collection handbook --index-dir {index}`" in err
    code, _, err = run(capsys, "status", "--index-dir", index)
    assert code == ExitCode.NO_COLLECTION and "`groundkit ingest PATH --index-dir" in err
    assert "--collection" not in err  # the default collection needs no flag
    docs = _docs(tmp_path / "docs")
    assert run(capsys, "ingest", str(docs), "--index-dir", index, "--no-calibrate")[0] == 0
    for inside in ("default", "default/collection.sqlite"):  # the collection's own folder, file
        code, _, err = run(capsys, "search", "leak", "--index-dir", f"{index}/{inside}")
        assert code == ExitCode.NO_COLLECTION
        assert f"pass --index-dir {index} --collection default" in err
    code, _, err = run(capsys, "search", "leak", "--collection", "nope", "--index-dir", index)
    assert f"collections in {index}: default (--collection NAME)" in err
    named = str(tmp_path / "vector_store")  # a folder named as a request field stays a path
    code, _, err = run(capsys, "search", "leak", "--index-dir", named)
    assert code == ExitCode.NO_COLLECTION and f"--index-dir {named}`" in err


def test_an_error_names_the_commands_options(capsys: pytest.CaptureFixture[str]) -> None:
    """A library message names request fields (top_k); the CLI adds its options for them,
    the message itself the one REST and MCP give (tests/serve/test_parity.py)."""
    code, _, err = run(capsys, "search", "leak", "--top-k", "0", "--json")
    message = json.loads(err)["error"]["message"]
    assert code == ExitCode.USAGE and message.endswith("(here top_k is --top-k)")


def test_ingest_lists_each_refusal_once_grouped_with_its_path_once(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    docs = _docs(tmp_path / "docs")
    for name in ("a.md", "b.md"):
        (docs / name).write_bytes(b"# Broken\n\n\xff\xfe not UTF-8\n")
    code, out, err = run(capsys, "ingest", str(docs), "--index-dir", str(tmp_path / "i"))
    assert code == ExitCode.REFUSED_INPUT
    assert out.count("2 indexed") == 1 and out.count("refused") == 1  # the summary, once
    assert err.count("refused 2 file(s)") == 1
    for name in ("a.md", "b.md"):
        assert err.count(name) == 1, err  # each path once, on its own line
        assert f"\n    {name}\n" in err
    groups = [line for line in err.splitlines() if line.startswith("  ") and "(2)" in line]
    assert len(groups) == 1  # one fix for both files
    report = ingest(docs, index_dir=tmp_path / "j")
    summary = report.summary()
    assert "refused 2 file(s)" in summary and "\n    a.md" in summary and "\n    b.md" in summary


def test_refusals_that_differ_only_in_where_the_file_broke_share_one_fix(tmp_path: Path) -> None:
    docs = _docs(tmp_path / "docs")
    (docs / "a.md").write_bytes(b"# A\n\n\xff bad\n")
    (docs / "b.md").write_bytes(b"# B\n\nlonger first \xfe bad\n")
    text = ingest(docs, index_dir=tmp_path / "i").refusals_text()
    assert "  not_utf8 (2): is not valid UTF-8; convert it to UTF-8" in text
    assert "\n    a.md (byte 5: invalid start byte)" in text
    assert "\n    b.md (byte 18: invalid start byte)" in text


def test_verify_groups_failures_by_file_with_a_reingest_hint(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    docs = _docs(tmp_path / "docs")
    index = str(tmp_path / "i")
    assert main(["ingest", str(docs), "--index-dir", index, "--collection", "c", "--quiet"]) == 0
    (docs / "pumps.md").unlink()
    code, out, _ = run(capsys, "verify", "--index-dir", index, "--collection", "c")
    assert code == ExitCode.NOT_VERIFIED
    lines = out.splitlines()
    assert len(lines) == 4, out  # 40 failed chunks: the counts, the file, its reason, the hint
    assert lines[1] == "  pumps.md: 40 unresolvable citations"
    assert f"`groundkit ingest PATH --collection c --index-dir {index}`" in out


def test_an_empty_folder_is_refused_with_exit_3_and_no_collection(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    (tmp_path / "empty" / "sub").mkdir(parents=True)
    index = tmp_path / "i"
    code, _, err = run(capsys, "ingest", str(tmp_path / "empty"), "--index-dir", str(index))
    assert code == ExitCode.NO_COLLECTION and "nothing to ingest" in err
    assert not (index / "default").exists()
    code, _, _ = run(capsys, "search", "anything", "--index-dir", str(index))
    assert code == ExitCode.NO_COLLECTION  # not "no results" with exit 0


def test_sample_is_named_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["ingest", "--help"])
    out = capsys.readouterr().out
    assert "'sample' for the bundled sample corpus" in " ".join(out.split())
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "'sample': the bundled sample corpus" in capsys.readouterr().out


def test_ingest_sample_says_it_is_the_bundled_copy(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    code, out, _ = run(capsys, "ingest", "sample", "--index-dir", str(tmp_path / "i"))
    assert code == ExitCode.OK and out.startswith("ingested the bundled sample corpus (")


def test_progress_on_a_terminal_shows_rate_and_time_left() -> None:
    """A redrawn bar on a terminal says how fast and how long is left (a pipe gets plain lines:
    test_cli.py)."""
    import io

    from groundkit.cli.render import ProgressBar
    from groundkit.ingestion import IngestProgress

    class Terminal(io.StringIO):
        def isatty(self) -> bool:
            return True

    now = [0.0]
    stream = Terminal()
    bar = ProgressBar(stream, enabled=True, clock=lambda: now[0])
    for done in range(1, 401):
        now[0] = done * 2.0  # half a file a second: 800 s in all
        bar(IngestProgress(done=done, total=400, source=f"f{done}.md", outcome="indexed"))
        if done == 100:
            frame = stream.getvalue().rsplit("\r", 1)[-1]
            assert "100/400 0.5 files/s, ~10 min 00 s left" in frame, frame
    assert stream.getvalue().rsplit("\r", 1)[-1].startswith("[" + "#" * 30 + "] 400/400")


def test_an_ingest_that_stores_nothing_creates_no_collection(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    """A new collection that would hold nothing (no file of a wanted type, every file refused)
    is not kept: a search then says there is none (exit 3), not "no results"."""
    index = str(tmp_path / "idx")
    for name, data in (("blob.bin", b"\x00\x01"), ("blob.txt", b"text\x00\xff")):
        folder = tmp_path / name.replace(".", "-")
        folder.mkdir()
        (folder / name).write_bytes(data)
        code, out, _ = run(capsys, "ingest", str(folder), "--index-dir", index)
        assert code == ExitCode.REFUSED_INPUT and "no collection was created" in out
        assert not (tmp_path / "idx" / "default").exists()
        assert run(capsys, "search", "leak", "--index-dir", index)[0] == ExitCode.NO_COLLECTION
    docs = _docs(tmp_path / "docs")
    assert run(capsys, "ingest", str(docs), "--index-dir", index, "--no-calibrate")[0] == 0
    (docs / "pumps.md").unlink()
    (docs / "valves.txt").unlink()
    (docs / "blob.bin").write_bytes(b"\x00")
    code, _, _ = run(capsys, "ingest", str(docs), "--index-dir", index, "--no-calibrate")
    assert (tmp_path / "idx" / "default" / "collection.sqlite").exists()  # kept: it existed
