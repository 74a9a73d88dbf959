"""Ingest: discovery rules, refusals, incremental skip / replace / remove, stable ids."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.analysis.analyzer import Analyzer
from groundkit.config import ChunkerSettings, IngestSettings
from groundkit.errors import IndexIdentityError, IngestionError
from groundkit.ingestion import Indexer
from groundkit.store import CollectionStore

DOCS = {
    "a.md": "# Pumps\n\nThe pump station lifts water.\n",
    "b.txt": "Valves control pressure in each zone.\n",
    "sub/c.rst": "Hydrants\n========\n\nFlush hydrants every spring.\n",
}


def test_ingests_a_folder_sorted_with_default_extensions(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus({**DOCS, "notes.json": "{}", "image.png": b"\x89PNG"})
    report = Indexer(store).ingest(root)
    assert report.indexed == ["a.md", "b.txt", "sub/c.rst"]
    assert report.refused == [] and report.ok
    assert report.chunks_written >= 3
    assert report.root == str(root.resolve())


def test_hidden_files_and_folders_are_skipped(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus({**DOCS, ".hidden/x.md": "secret", ".y.md": "also"})
    assert ".hidden/x.md" not in Indexer(store).ingest(root).indexed
    assert Indexer(store).ingest(root).unchanged == ["a.md", "b.txt", "sub/c.rst"]


def test_second_ingest_skips_unchanged_replaces_changed_removes_vanished(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    first = Indexer(store).ingest(root)
    (root / "b.txt").write_text("Valves now control flow.\n", encoding="utf-8")
    (root / "sub" / "c.rst").unlink()
    (root / "d.md").write_text("New document.\n", encoding="utf-8")
    second = Indexer(store).ingest(root)
    assert second.unchanged == ["a.md"]
    assert second.replaced == ["b.txt"]
    assert second.removed == ["sub/c.rst"]
    assert second.indexed == ["d.md"]
    assert second.generation > first.generation
    with store.reader() as reader:
        assert sorted(d.source for d in reader.iter_documents()) == ["a.md", "b.txt", "d.md"]
        assert reader.postings("hydrant") in ((), [])
        assert reader.integrity_problems() == []


def test_changed_chunker_settings_rechunk_unchanged_files(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    smaller = IngestSettings(chunker=ChunkerSettings(target_chars=200, overlap_chars=20))
    assert Indexer(store, settings=smaller).ingest(root).replaced == ["a.md", "b.txt", "sub/c.rst"]


def test_reingesting_identical_content_gives_identical_ids(
    store: CollectionStore, write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    with store.reader() as reader:
        first = sorted((c.chunk_id, c.document_id, c.start_offset) for c in reader.iter_chunks())
    from groundkit.store import MemoryStore

    other = MemoryStore()
    Indexer(other).ingest(root)
    with other.reader() as reader:
        second = sorted((c.chunk_id, c.document_id, c.start_offset) for c in reader.iter_chunks())
    assert first == second


@pytest.mark.parametrize(
    ("content", "reason"),
    [
        (b"caf\xe9 latin-1\n", "not_utf8"),
        (b"text with a \x00 NUL\n", "nul_byte"),
        (b"x" * 2048, "too_large"),
    ],
)
def test_bad_files_are_refused_and_the_rest_goes_on(
    store: CollectionStore, write_corpus: WriteCorpus, content: bytes, reason: str
) -> None:
    root = write_corpus({**DOCS, "bad.txt": content})
    settings = IngestSettings(max_file_bytes=1024)
    report = Indexer(store, settings=settings).ingest(root)
    assert [(r.source, r.reason) for r in report.refused] == [("bad.txt", reason)]
    assert "bad.txt" in report.refused[0].message
    assert report.indexed == ["a.md", "b.txt", "sub/c.rst"]
    assert not report.ok


def test_a_file_that_turns_bad_keeps_its_stored_version(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    (root / "b.txt").write_bytes(b"\xff\xfe broken")
    report = Indexer(store).ingest(root)
    assert [r.source for r in report.refused] == ["b.txt"]
    assert report.removed == []
    assert store.find_document(report.root, "b.txt") is not None


def test_symlink_escaping_the_base_is_refused(
    store: CollectionStore, write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.md").write_text("top secret\n", encoding="utf-8")
    root = write_corpus(DOCS)
    os.symlink(outside / "secret.md", root / "link.md")
    os.symlink(outside, root / "linkdir")
    report = Indexer(store).ingest(root)
    refused = {r.source: r.reason for r in report.refused}
    assert refused == {"link.md": "path_escape", "linkdir": "path_escape"}
    with store.reader() as reader:
        assert reader.postings("secret") in ((), [])


def test_symlink_inside_the_base_is_followed(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    root = write_corpus(DOCS)
    os.symlink(root / "a.md", root / "alias.md")
    report = Indexer(store).ingest(root)
    assert "alias.md" in report.indexed
    assert report.refused == []


def test_a_single_file_can_be_ingested(store: CollectionStore, write_corpus: WriteCorpus) -> None:
    root = write_corpus(DOCS)
    report = Indexer(store).ingest(root / "sub" / "c.rst")
    assert report.indexed == ["c.rst"]
    assert report.root == str((root / "sub").resolve())


def test_a_missing_path_is_an_ingestion_error(store: CollectionStore, tmp_path: Path) -> None:
    with pytest.raises(IngestionError, match="no such file") as info:
        Indexer(store).ingest(tmp_path / "nowhere")
    assert info.value.reason == "not_found"


def test_another_analyzer_is_refused(store: CollectionStore, write_corpus: WriteCorpus) -> None:
    root = write_corpus(DOCS)
    Indexer(store).ingest(root)
    with pytest.raises(IndexIdentityError, match="built with analyzer"):
        Indexer(store, analyzer=Analyzer(stemmer="snowball-english"))
    Indexer(store, analyzer=Analyzer()).ingest(root)  # the same one is fine


def test_identical_file_under_another_root_is_reported_not_doubled(
    store: CollectionStore, tmp_path: Path
) -> None:
    for name in ("one", "two"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "same.md").write_text("same words\n", encoding="utf-8")
    Indexer(store).ingest(tmp_path / "one")
    report = Indexer(store).ingest(tmp_path / "two")
    assert [(r.source, r.reason) for r in report.refused] == [("same.md", "duplicate")]


def test_progress_is_reported_per_file(store: CollectionStore, write_corpus: WriteCorpus) -> None:
    root = write_corpus(DOCS)
    events: list[tuple[int, int, str]] = []
    Indexer(store).ingest(root, progress=lambda e: events.append((e.done, e.total, e.outcome)))
    assert events == [(1, 3, "indexed"), (2, 3, "indexed"), (3, 3, "indexed")]


@pytest.mark.parametrize(
    ("files_per_commit", "commit_seconds", "groups"), [(256, 60.0, 1), (2, 60.0, 2), (256, 0.0, 3)]
)
def test_files_are_committed_in_groups_bounded_by_count_and_time(
    store: CollectionStore,
    write_corpus: WriteCorpus,
    monkeypatch: pytest.MonkeyPatch,
    files_per_commit: int,
    commit_seconds: float,
    groups: int,
) -> None:
    from contextlib import contextmanager

    from groundkit.ingestion import indexer

    monkeypatch.setattr(indexer, "FILES_PER_COMMIT", files_per_commit)
    monkeypatch.setattr(indexer, "COMMIT_SECONDS", commit_seconds)
    batches = 0
    original = store.batch

    @contextmanager
    def counting():  # type: ignore[no-untyped-def]
        nonlocal batches
        batches += 1
        with original():
            yield

    monkeypatch.setattr(store, "batch", counting)
    report = Indexer(store).ingest(write_corpus(DOCS))
    assert len(report.indexed) == 3 and batches == groups
