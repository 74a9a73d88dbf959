"""``Indexer.ingest_texts``: a corpus in memory ingested as the files that would hold it."""

from __future__ import annotations

from pathlib import Path

from conftest import WriteCorpus
from groundkit.config import IngestSettings
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher
from groundkit.store import CollectionStore

TEXTS = {
    "a.txt": "Pumps are inspected monthly.\n\nValves are greased in spring.",
    "sub/b.md": "# Chlorine\n\nChlorine dosing is checked daily at the plant.",
    "c.txt": "Meters are read every quarter.",
}


def _contents(store: CollectionStore) -> tuple[list[object], list[object], list[object]]:
    with store.reader() as reader:
        documents = sorted(reader.iter_documents(), key=lambda d: d.source)
        chunks = sorted(reader.iter_chunks(), key=lambda c: c.chunk_id)
        postings = [sorted(reader.postings(t)) for t in ("pump", "chlorin", "meter", "read")]
        return documents, chunks, postings  # type: ignore[return-value]


def test_texts_are_stored_as_the_files_holding_them(
    store: CollectionStore, write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    root = write_corpus(dict(TEXTS))
    from_texts = Indexer(store).ingest_texts(root, sorted(TEXTS.items()))
    assert sorted(from_texts.indexed) == sorted(TEXTS) and from_texts.root == str(root.resolve())
    stored = _contents(store)
    from groundkit.store.sqlite import SqliteStore

    with SqliteStore(tmp_path / "files.sqlite") as files:
        Indexer(files).ingest(root)
        assert _contents(files) == stored
    with Searcher.of(store.reader()) as retriever:
        top = retriever.search("chlorine dosing").results[0]
        assert top.source == "sub/b.md" and retriever.verify(top).ok


def test_a_second_run_skips_unchanged_replaces_changed_and_removes_absent(
    store: CollectionStore, tmp_path: Path
) -> None:
    indexer = Indexer(store)
    indexer.ingest_texts(tmp_path, sorted(TEXTS.items()))
    again = indexer.ingest_texts(tmp_path, [("a.txt", TEXTS["a.txt"]), ("c.txt", "Meters.")])
    assert (again.unchanged, again.replaced, again.removed) == (["a.txt"], ["c.txt"], ["sub/b.md"])
    with store.reader() as reader:
        assert reader.integrity_problems() == []


def test_texts_a_file_could_not_hold_are_refused_by_name(
    store: CollectionStore, tmp_path: Path
) -> None:
    indexer = Indexer(store, settings=IngestSettings(max_file_bytes=40))
    report = indexer.ingest_texts(
        tmp_path,
        [("nul.txt", "a\0b"), ("big.txt", "x" * 41), ("lone.txt", "a\ud800"), ("ok.txt", "fine")],
    )
    assert report.indexed == ["ok.txt"]
    assert {r.source: r.reason for r in report.refused} == {
        "big.txt": "too_large",
        "lone.txt": "not_utf8",
        "nul.txt": "nul_byte",
    }


def test_a_source_given_twice_in_one_call_is_unchanged_or_replaced_within_the_batch(
    tmp_path: Path,
) -> None:
    """The second text of a source finds the first one written earlier in the same commit
    group, not yet stored: the same text is unchanged, another one replaces it."""
    from groundkit.store.sqlite import SqliteStore

    with SqliteStore(tmp_path / "c.sqlite") as store:
        pairs = [("a.txt", "pumps move water"), ("b.txt", "valves"), ("a.txt", "pumps move water")]
        report = Indexer(store).ingest_texts(tmp_path, pairs)
        assert (report.indexed, report.unchanged) == (["a.txt", "b.txt"], ["a.txt"])
        report = Indexer(store).ingest_texts(
            tmp_path / "other", [("a.txt", "first words"), ("a.txt", "second words")]
        )
        assert (report.indexed, report.replaced) == (["a.txt"], ["a.txt"])
        with store.reader() as reader:
            assert not reader.postings("first") and len(reader.postings("second")) == 1
            assert reader.integrity_problems() == []
