"""The ingest command where a user's machine pushes back (issue 29, items 16 and 17): an
--index-dir that is a file or cannot be created is a clear error, text or JSON, never a
traceback; an interrupt says how many files this run stored, counted, not assumed."""

from __future__ import annotations

import importlib
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

import groundkit
from groundkit.cli import main
from groundkit.collection import collection_status


@pytest.mark.parametrize("as_json", [False, True])
def test_an_index_dir_that_is_a_file_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], as_json: bool
) -> None:
    (tmp_path / "afile").write_text("not a folder", encoding="utf-8")
    argv = ["ingest", str(groundkit.sample_corpus()), "--index-dir", str(tmp_path / "afile")]
    code = main([*argv, "--json"] if as_json else argv)
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "is a file, not a folder" in err
    if as_json:
        assert json.loads(err)["error"]["type"] == "StorageError"
    assert (tmp_path / "afile").read_text(encoding="utf-8") == "not a folder"


def test_an_index_dir_that_cannot_be_created_is_a_clear_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def refuse(self: Path, *args: Any, **kwargs: Any) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(Path, "mkdir", refuse)  # a read-only parent (root ignores chmod)
    code = main(["ingest", str(groundkit.sample_corpus()), "--index-dir", str(tmp_path / "i")])
    err = capsys.readouterr().err
    assert code == 1 and "Traceback" not in err
    assert "cannot create the collection folder" in err and "Permission denied" in err


class _InterruptingBar:
    """A progress bar whose third call is the user's Ctrl-C (inside the first commit group)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        self.calls = 0

    def __call__(self, progress: object) -> None:
        self.calls += 1
        if self.calls == 3:
            raise KeyboardInterrupt


def _documents(index: Path) -> int:
    return int(collection_status(index)["documents"])


def test_an_interrupt_inside_a_commit_group_counts_the_files_it_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("groundkit.cli.commands.ingest.ProgressBar", _InterruptingBar)
    index = tmp_path / "index"
    code = main(["ingest", str(groundkit.sample_corpus()), "--index-dir", str(index)])
    err = capsys.readouterr().err
    assert code == 130
    assert "3 files of this run were stored" in err  # the group commits what it finished
    assert _documents(index) == 3


def test_an_interrupt_before_any_file_finished_says_none_was_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def interrupted(*args: Any, **kwargs: Any) -> bytes:
        raise KeyboardInterrupt

    indexer = importlib.import_module("groundkit.ingestion.indexer")  # the package name is shadowed
    monkeypatch.setattr(indexer, "read_bytes", interrupted)
    code = main(["ingest", str(groundkit.sample_corpus()), "--index-dir", str(tmp_path / "i")])
    err = capsys.readouterr().err
    assert code == 130
    assert "0 files of this run were stored" in err
    assert "every finished file is stored" not in err


def test_an_interrupt_after_a_commit_counts_what_that_commit_stored(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(groundkit.sample_corpus(), corpus)
    index = tmp_path / "index"
    groundkit.ingest(corpus / "billing", index_dir=index)  # stored before this run
    real = groundkit.ingest

    def commit_then_interrupt(path: Any, **kwargs: Any) -> Any:
        real(Path(path) / "safety", **kwargs)  # one group committed during the run
        raise KeyboardInterrupt

    monkeypatch.setattr("groundkit.cli.commands.ingest.ingest", commit_then_interrupt)
    code = main(["ingest", str(corpus), "--index-dir", str(index), "--quiet"])
    err = capsys.readouterr().err
    stored = len([p for p in (corpus / "safety").iterdir() if p.is_file()])
    assert code == 130 and stored > 1
    assert f"{stored} files of this run were stored" in err
