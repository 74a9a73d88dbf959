"""Issue 17, hostile inputs: each row gets a clear refusal naming the input, the rest goes on,
and nothing stored is removed because it could not be read."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.chunking import chunk_text
from groundkit.chunking.scan import paragraph_bounds
from groundkit.config import ChunkerSettings, IngestSettings
from groundkit.ingestion import Indexer
from groundkit.ingestion.discover import discover
from groundkit.lines import LineIndex
from groundkit.retrieval.citations import (
    citation_for,
    verify_citation,
    verify_document_citation,
    verify_max_bytes,
)
from groundkit.store import CollectionStore

DEEP = pytest.mark.skipif(
    sys.platform == "emscripten",
    reason="Pyodide's in-memory file system resolves each path from the root: 1,200 levels "
    "take minutes, and it has no PATH_MAX",
)
DOCS = {
    "a.md": "# Pumps\n\nThe pump station lifts water.\n",
    "m/b.txt": "Valves control pressure in each zone.\n",
    "z.md": "# Zones\n\nZones are fed from reservoirs.\n",
}


def _stored(store: CollectionStore) -> list[str]:
    with store.reader() as reader:
        return sorted(d.source for d in reader.iter_documents())


def test_a_symlink_loop_is_refused_by_name_and_the_rest_goes_on(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    os.symlink(root / "loop2.md", root / "loop1.md")
    os.symlink(root / "loop1.md", root / "loop2.md")
    os.symlink(root / "self", root / "self")  # a folder-less self loop, not ending in .md
    report = Indexer(store).ingest(root)
    refused = {r.source: r.reason for r in report.refused}
    assert refused == {"loop1.md": "symlink_loop", "loop2.md": "symlink_loop"}
    assert all("symlink loop" in r.message for r in report.refused)
    assert report.indexed == ["a.md", "m/b.txt", "z.md"]


@pytest.mark.skipif(
    sys.platform in ("darwin", "emscripten"), reason="file names there are Unicode strings"
)
def test_a_file_name_that_is_not_utf8_is_refused_and_later_files_are_ingested(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    with open(os.path.join(os.fsencode(root), b"caf\xe9.md"), "wb") as handle:
        handle.write(b"# Cafe\n\nBad name.\n")
    bad_folder = os.path.join(os.fsencode(root), b"d\xff")
    os.mkdir(bad_folder)
    with open(os.path.join(bad_folder, b"x.md"), "wb") as handle:
        handle.write(b"# Hidden\n")
    report = Indexer(store).ingest(root)
    refused = {r.source: r.reason for r in report.refused}
    assert refused == {"caf\\xe9.md": "bad_name", "d\\xff": "bad_name"}
    assert "not valid UTF-8" in report.refused[0].message
    assert report.indexed == ["a.md", "m/b.txt", "z.md"]  # z.md sorts after the bad names
    report.to_dict()  # printable: no lone surrogates
    assert all(r.message.encode("utf-8") for r in report.refused)


@pytest.fixture
def nest(request: pytest.FixtureRequest) -> Callable[[Path, bytes, int, bytes], None]:
    """``nest(root, name, depth, leaf)``: ``root/name/name/.../leaf.md``, built and removed one
    level at a time (the full path may pass PATH_MAX, and ``shutil.rmtree`` recurses)."""
    made: list[tuple[bytes, bytes, int]] = []
    home = os.getcwd()

    def build(root: Path, name: bytes, depth: int, leaf: bytes) -> None:
        os.chdir(os.fsencode(root))
        try:
            for _ in range(depth):
                os.mkdir(name)
                os.chdir(name)
            with open(leaf, "wb") as handle:
                handle.write(b"# Far\n\nAt the bottom.\n")
        finally:
            os.chdir(home)
        made.append((os.fsencode(root), name, depth))

    def remove() -> None:
        for root, name, depth in made:
            if shutil.which("rm"):  # GNU/BSD rm walk any depth, fast
                subprocess.run(["rm", "-rf", os.path.join(root, name)], check=True)
                continue
            os.chdir(root)
            for _ in range(depth):
                os.chdir(name)
            for entry in os.listdir("."):
                os.unlink(entry)
            for _ in range(depth):
                os.chdir(b"..")
                os.rmdir(name)
        os.chdir(home)

    request.addfinalizer(remove)
    return build


@DEEP
def test_folders_nested_1200_deep_are_walked_without_recursion(
    write_corpus: WriteCorpus, nest: Callable[[Path, bytes, int, bytes], None]
) -> None:
    root = write_corpus(DOCS)
    nest(root, b"d", 1200, b"deep.md")
    found = discover(root, (".md", ".txt"))
    # "d/" * 1200 is 2,400 bytes: under PATH_MAX (4,096) the file is reached; the limit case
    # is the next test.
    assert [f.source for f in found.files] == ["a.md", "d/" * 1200 + "deep.md", "m/b.txt", "z.md"]
    assert found.refused == ()


@DEEP
def test_a_path_over_the_system_limit_is_refused_by_name(
    store: CollectionStore,
    write_corpus: WriteCorpus,
    nest: Callable[[Path, bytes, int, bytes], None],
) -> None:
    root = write_corpus(DOCS)
    nest(root, b"n" * 250, 20, b"far.md")  # 20 x 251 bytes: past PATH_MAX (4,096)
    report = Indexer(store).ingest(root)
    assert report.indexed == ["a.md", "m/b.txt", "z.md"]
    assert len(report.refused) == 1
    refusal = report.refused[0]
    assert refusal.reason == "unreadable" and refusal.source.startswith("n" * 250 + "/")
    assert "cannot be read" in refusal.message


def _unreadable(monkeypatch: pytest.MonkeyPatch, folder: Path) -> None:
    """Make ``folder`` unlistable: ``os.scandir`` on it raises ``PermissionError``.

    Tests run as root in CI containers, where ``chmod 000`` stops nothing; patching the one
    call discovery lists folders with reproduces what a non-root user sees
    (``test_a_chmod_000_folder_is_refused`` checks the real thing where it can).
    """
    real = os.scandir

    def scandir(path: Path | str) -> object:
        if Path(path) == folder:
            raise PermissionError(13, "Permission denied", str(path))
        return real(path)

    monkeypatch.setattr(os, "scandir", scandir)


def test_an_unreadable_folder_is_refused_and_its_stored_documents_kept(
    store: CollectionStore, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_corpus({**DOCS, "m/n/c.md": "# Deeper\n\nStill here.\n"})
    Indexer(store).ingest(root)
    _unreadable(monkeypatch, root.resolve() / "m")
    report = Indexer(store).ingest(root)
    assert [(r.source, r.reason) for r in report.refused] == [("m", "unreadable")]
    assert "m: folder cannot be read (Permission denied)" in report.refused[0].message
    assert report.removed == []
    assert _stored(store) == ["a.md", "m/b.txt", "m/n/c.md", "z.md"]


@pytest.mark.skipif(
    not hasattr(os, "geteuid") or os.geteuid() == 0, reason="root reads a chmod 000 folder"
)
def test_a_chmod_000_folder_is_refused(store: CollectionStore, write_corpus: WriteCorpus) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    (root / "m").chmod(0)
    try:
        report = Indexer(store).ingest(root)
    finally:
        (root / "m").chmod(0o755)
    assert [(r.source, r.reason) for r in report.refused] == [("m", "unreadable")]
    assert _stored(store) == ["a.md", "m/b.txt", "z.md"]


def test_an_unreadable_base_folder_removes_nothing(
    store: CollectionStore, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    _unreadable(monkeypatch, root.resolve())
    report = Indexer(store).ingest(root)
    assert [(r.source, r.reason) for r in report.refused] == [(".", "unreadable")]
    assert report.removed == [] and _stored(store) == ["a.md", "m/b.txt", "z.md"]


SMALL = ChunkerSettings(target_chars=64, overlap_chars=8)
LONE_CR = "# Title\r\rFirst paragraph line one\rline two.\r\r## Part\r\rBody text here.\r"


def test_lone_cr_line_endings_count_as_lines_and_end_headings() -> None:
    lines = LineIndex(LONE_CR)
    assert lines.line_count == 9  # as an editor shows it: 8 breaks, an empty last line
    spans = chunk_text(LONE_CR, kind="markdown", settings=SMALL)
    assert [LONE_CR[s.start : s.end] for s in spans] == [
        "# Title\r\rFirst paragraph line one\rline two.",
        "## Part\r\rBody text here.",
    ]
    assert [s.heading_path for s in spans] == [("Title",), ("Title", "Part")]
    assert [lines.span(s.start, s.end) for s in spans] == [(1, 4), (6, 8)]


def test_crlf_and_mixed_line_endings_count_each_break_once() -> None:
    text = "a\r\nb\rc\nd"
    assert LineIndex(text).line_count == 4
    assert [LineIndex(text).line_of(text.index(c)) for c in "abcd"] == [1, 2, 3, 4]
    crlf = "# T\r\n\r\nOne.\r\nTwo.\r\n\r\n# U\r\nThree.\r\n"
    spans = chunk_text(crlf, kind="markdown", settings=SMALL)
    assert [crlf[s.start : s.end] for s in spans] == ["# T\r\n\r\nOne.\r\nTwo.", "# U\r\nThree."]
    plain = "One.\r\nTwo.\r\n\r\nThree.\rFour.\r\rFive."
    assert [plain[a:b] for a, b in paragraph_bounds(plain)] == [
        "One.\r\nTwo.",
        "Three.\rFour.",
        "Five.",
    ]


def test_lone_cr_file_is_ingested_with_editor_line_spans(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus({"cr.md": LONE_CR})
    Indexer(store).ingest(root)
    with store.reader() as reader:
        chunks = list(reader.iter_chunks())
    assert [(c.start_line, c.end_line) for c in chunks] == [(1, 4), (6, 8)]
    assert [c.metadata["heading_path"] for c in chunks] == [["Title"], ["Title", "Part"]]


def test_a_utf8_bom_does_not_hide_the_first_heading() -> None:
    text = "\ufeff# Title\n\nBody.\n\n## Part\n\nMore.\n"
    spans = chunk_text(text, kind="markdown", settings=SMALL)
    assert [s.heading_path for s in spans] == [("Title",), ("Title", "Part")]
    assert text[spans[0].start : spans[0].end] == "# Title\n\nBody."


def test_verify_reads_a_file_ingested_under_a_raised_size_cap(
    store: CollectionStore, write_corpus: WriteCorpus, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file over the default cap, ingested with a raised one, verifies: the cap verify reads
    under follows the document's recorded size (4 bytes per code point at most in UTF-8).

    The default cap is patched down to 1 KiB so that the file need not be 10 MiB."""
    from groundkit.retrieval import citations

    big = "# Big\n\n" + "word " * 600  # 3,007 bytes
    root = write_corpus({"big.md": big})
    Indexer(store, settings=IngestSettings(max_file_bytes=4096)).ingest(root)
    monkeypatch.setattr(citations, "DEFAULT_MAX_FILE_BYTES", 1024)
    with store.reader() as reader:
        document = next(iter(reader.iter_documents()))
        chunk = next(iter(reader.iter_chunks()))
    citation = citation_for(chunk, document)
    assert verify_citation(citation, document.root, max_bytes=1024).verdict == "unresolvable"
    assert verify_max_bytes(document) == 4 * len(big)
    check = verify_citation(citation, document.root, max_bytes=verify_max_bytes(document))
    assert check.verdict == "verified"
    # the one call every stored-result verify goes through (retriever, shards, service)
    assert verify_document_citation(citation, document, store.location).verdict == "verified"
