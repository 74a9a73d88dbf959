"""Issue 17, exit codes as documented: usage and invalid values exit 2 everywhere, a damaged
collection 6, and with ``--json`` every error is one JSON object on stderr."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.cli import ExitCode, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def index(tmp_path: Path, write_corpus: WriteCorpus, capsys: pytest.CaptureFixture[str]) -> str:
    root = write_corpus({"a.md": "# Pumps\n\nThe pump station lifts water.\n"})
    where = str(tmp_path / "index")
    assert run(capsys, "ingest", str(root), "--index-dir", where, "--quiet")[0] == ExitCode.OK
    return where


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (("search", "pump", "--top-k", "0"), "--top-k"),
        (("search", "pump", "--mode", "bogus"), "invalid choice"),
        (("search", "   "), "empty"),
        (("search", "pump", "--score-threshold", "nan"), "--score-threshold"),
        (("search", "pump", "--frobnicate"), "unrecognized arguments"),
        (("search",), "required"),
        (("status", "--collection", "../x"), "collection name"),
    ],
)
def test_usage_errors_exit_2_and_print_json_with_json(
    capsys: pytest.CaptureFixture[str], index: str, argv: tuple[str, ...], words: str
) -> None:
    code, out, err = run(capsys, *argv, "--index-dir", index)
    assert code == ExitCode.USAGE and words in err and out == ""
    code, out, err = run(capsys, *argv, "--index-dir", index, "--json")
    assert code == ExitCode.USAGE and out == ""
    error = json.loads(err)["error"]
    assert error["exit_code"] == 2 and words in error["message"]


def test_check_exit_codes(capsys: pytest.CaptureFixture[str], index: str, tmp_path: Path) -> None:
    code, out, _ = run(capsys, "check", "--index-dir", index, "--json")
    assert code == ExitCode.OK and json.loads(out) == {
        "collection": "default",
        "ok": True,
        "problems": [],
    }
    code, _, err = run(capsys, "check", "--index-dir", str(tmp_path / "none"), "--json")
    assert code == ExitCode.NO_COLLECTION
    assert json.loads(err)["error"]["type"] == "CollectionNotFoundError"
