"""The file read at ingest and at verify is the file that passed the containment check."""

from __future__ import annotations

import importlib
import os
from pathlib import Path
from typing import Any

import pytest

import groundkit
from groundkit import Searcher
from groundkit.retrieval.citations import verify_citation
from groundkit.source_files import read_bytes, read_text

SECRET = "top secret outside the base\n"
# by module name: ``groundkit.ingestion`` re-exports a function called ``discover``
discover_module = importlib.import_module("groundkit.ingestion.discover")
indexer_module = importlib.import_module("groundkit.ingestion.indexer")


def _swap_after_discovery(monkeypatch: pytest.MonkeyPatch, swap: Any) -> None:
    """Run ``swap()`` between discovery and the first read, as a racing process could."""

    def discover_then_swap(*args: Any, **kwargs: Any) -> discover_module.Discovery:
        found = discover_module.discover(*args, **kwargs)
        swap()
        return found

    monkeypatch.setattr(indexer_module, "discover", discover_then_swap)


def test_a_file_swapped_for_an_escaping_symlink_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text(SECRET, encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\nharmless pump text\n", encoding="utf-8")

    def swap() -> None:
        (corpus / "a.md").unlink()
        (corpus / "a.md").symlink_to(outside)

    _swap_after_discovery(monkeypatch, swap)
    report = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    assert report.indexed == []
    [refusal] = report.refused
    assert (refusal.source, refusal.reason) == ("a.md", "path_escape")
    assert not report.created  # nothing stored: no collection, so nothing of it to search
    assert not (tmp_path / "index" / "default").exists()


def test_a_folder_swapped_for_an_escaping_symlink_is_not_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "a.md").write_text(SECRET, encoding="utf-8")
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "sub" / "a.md").write_text("harmless\n", encoding="utf-8")

    def swap() -> None:
        (corpus / "sub" / "a.md").unlink()
        (corpus / "sub").rmdir()
        (corpus / "sub").symlink_to(elsewhere, target_is_directory=True)

    _swap_after_discovery(monkeypatch, swap)
    report = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    assert report.indexed == [] and [r.reason for r in report.refused] == ["path_escape"]


@pytest.mark.parametrize("walk", [True, False], ids=["dir_fd-walk", "fstat-compare"])
def test_a_swap_inside_the_base_is_refused_rather_than_followed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, walk: bool
) -> None:
    """Between the check and the open a symlink may appear anywhere: the descriptor is checked.

    Both ways of opening are held: component by component with ``dir_fd`` (POSIX), and open
    then compare the descriptor with the re-resolved path (hosts without ``dir_fd``). The
    source goes through a linked folder, so it is resolved and checked first (a path of plain
    names with no link is opened as it is, with nothing to race).
    """
    corpus = tmp_path / "corpus"
    (corpus / "real").mkdir(parents=True)
    (corpus / "real" / "a.md").write_text("checked text\n", encoding="utf-8")
    (corpus / "b.md").write_text("other text\n", encoding="utf-8")
    (corpus / "dir").symlink_to(corpus / "real", target_is_directory=True)
    from groundkit import source_files

    checked = source_files.contained_path

    def check_then_swap(root: Path, source: str) -> Path:
        resolved = checked(root, source)
        if not (corpus / "real" / "a.md").is_symlink():
            os.replace(corpus / "real" / "a.md", corpus / "real" / "a.old")
            (corpus / "real" / "a.md").symlink_to(corpus / "b.md")
        return resolved

    if walk and not source_files._WALK:
        pytest.skip("this host's os.open has no dir_fd")
    monkeypatch.setattr(source_files, "_WALK", walk)
    monkeypatch.setattr(source_files, "contained_path", check_then_swap)
    with pytest.raises(groundkit.IngestionError) as info:
        read_bytes(corpus, "dir/a.md", max_bytes=1000)
    assert info.value.reason == "path_escape"


def test_plain_names_are_read_without_resolving_and_anything_else_is_resolved(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A source of plain names with no link is opened as it is, name by name; a link, a
    ``..`` or a ``.`` on the way sends it through the resolving check, which refuses what
    leaves the base."""
    from groundkit import source_files

    if not source_files._WALK:
        pytest.skip("this host's os.open has no dir_fd")
    (tmp_path / "secret.txt").write_text(SECRET, encoding="utf-8")
    corpus = tmp_path / "corpus"
    (corpus / "sub").mkdir(parents=True)
    (corpus / "sub" / "a.md").write_text("inside\n", encoding="utf-8")
    (corpus / "link.md").symlink_to(corpus / "sub" / "a.md")
    resolved: list[str] = []
    checked = source_files.contained_path

    def counted(root: Path, source: str) -> Path:
        resolved.append(source)
        return checked(root, source)

    monkeypatch.setattr(source_files, "contained_path", counted)
    assert read_text(corpus, "sub/a.md", max_bytes=100) == "inside\n"
    assert resolved == []
    assert read_text(corpus, "link.md", max_bytes=100) == "inside\n"
    assert read_text(corpus, "sub/./a.md", max_bytes=100) == "inside\n"
    assert resolved == ["link.md", "sub/./a.md"]
    with pytest.raises(groundkit.IngestionError) as info:
        read_bytes(corpus, "sub/../../secret.txt", max_bytes=100)
    assert info.value.reason == "path_escape"


def test_verify_does_not_follow_a_swapped_file(tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text(SECRET, encoding="utf-8")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "a.md").write_text(SECRET, encoding="utf-8")
    groundkit.ingest(corpus, index_dir=tmp_path / "index")
    with Searcher.open(tmp_path / "index") as retriever:
        top = retriever.search("secret").results[0]
    (corpus / "a.md").unlink()
    (corpus / "a.md").symlink_to(outside)
    check = verify_citation(top.citation, corpus)
    assert check.verdict == "unresolvable" and "outside the base" in check.reason


def test_symlinks_inside_the_base_still_read(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    (corpus / "real").mkdir(parents=True)
    (corpus / "real" / "a.md").write_text("inside\n", encoding="utf-8")
    (corpus / "link.md").symlink_to(corpus / "real" / "a.md")
    (corpus / "dir").symlink_to(corpus / "real", target_is_directory=True)
    assert read_text(corpus, "link.md", max_bytes=100) == "inside\n"
    assert read_text(corpus, "dir/a.md", max_bytes=100) == "inside\n"
    with pytest.raises(groundkit.IngestionError) as info:
        read_bytes(corpus, "real", max_bytes=100)
    assert info.value.reason == "not_a_file"


@pytest.mark.parametrize("size", [0, 1, 4_999, 5_000, 70_000])
def test_a_file_is_read_to_its_end_or_one_past_the_limit_whatever_size_fstat_gave(
    tmp_path: Path, size: int
) -> None:
    """The read takes the file's size from ``fstat`` as its first piece, not the limit; a
    file that grew since is read on in larger pieces, up to one byte past the limit (which
    ``read_bytes`` refuses as too large)."""
    from groundkit.source_files import _read_up_to

    data = bytes(range(256)) * 400  # 102,400 bytes
    path = tmp_path / "grown.bin"
    path.write_bytes(data)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert _read_up_to(fd, len(data) + 1, size) == data
        os.lseek(fd, 0, os.SEEK_SET)
        assert _read_up_to(fd, 80_001, size) == data[:80_001]
    finally:
        os.close(fd)
    with pytest.raises(groundkit.IngestionError) as info:
        read_bytes(tmp_path, "grown.bin", max_bytes=len(data) - 1)
    assert info.value.reason == "too_large"
