"""Managing a collection: its roots, removing sources, relocating a moved folder."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

import groundkit
from groundkit import Searcher
from groundkit.cli import main
from groundkit.contracts import Document
from groundkit.store import CollectionStore

PUMPS = "# Pumps\n\nCheck the impeller seals weekly.\n"
VALVES = "# Valves\n\nGrease the gate valves every spring.\n"
PAGE = "<html><body><main><h1>Meters</h1><p>Read the water meters monthly.</p></main></body>"


@pytest.fixture
def docs(tmp_path: Path) -> Path:
    root = tmp_path / "docs"
    (root / "sub").mkdir(parents=True)
    (root / "pumps.md").write_text(PUMPS, encoding="utf-8")
    (root / "sub" / "valves.md").write_text(VALVES, encoding="utf-8")
    (root / "meters.html").write_text(PAGE, encoding="utf-8")
    return root


def cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_sources_lists_roots_with_counts_by_class(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = tmp_path / "other"
    other.mkdir()
    (other / "index.txt").write_text("Other notes on pumps.\n", encoding="utf-8")
    index = str(tmp_path / "index")
    groundkit.ingest(docs, index_dir=index)
    groundkit.ingest(other, index_dir=index)
    roots = groundkit.list_sources(index)
    assert [(r.root, r.documents, r.classes) for r in roots] == [
        (str(docs.resolve()), 3, {"extracted": 1, "text": 2}),
        (str(other.resolve()), 1, {"text": 1}),
    ]
    code, out, _ = cli(capsys, "sources", "--index-dir", index)
    assert code == 0 and f"3  {docs.resolve()}  (extracted 1, text 2)" in out
    code, out, _ = cli(capsys, "sources", "--index-dir", index, "--json")
    assert json.loads(out)[1] == {
        "root": str(other.resolve()),
        "documents": 1,
        "classes": {"text": 1},
    }


def test_same_named_files_of_two_roots_are_shown_apart(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    for name in ("a", "b"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "index.txt").write_text(f"Pump station {name} notes.\n", "utf-8")
        groundkit.ingest(tmp_path / name, index_dir=index)
    code, out, _ = cli(capsys, "search", "pump station", "--index-dir", index)
    assert code == 0
    assert f"{(tmp_path / 'a').resolve()}/index.txt:1-1" in out
    assert f"{(tmp_path / 'b').resolve()}/index.txt:1-1" in out
    code, out, _ = cli(capsys, "search", "pump station", "--index-dir", index, "--json")
    roots = {r["metadata"]["root"] for r in json.loads(out)["results"]}
    assert roots == {str((tmp_path / n).resolve()) for n in ("a", "b")}


def test_remove_a_file_a_folder_or_a_root(docs: Path, tmp_path: Path) -> None:
    index = tmp_path / "index"
    groundkit.ingest(docs, index_dir=index)
    report = groundkit.remove_sources(docs / "sub" / "valves.md", index_dir=index)
    assert report.removed == [f"{docs.resolve()}/sub/valves.md"]
    with Searcher.open(index) as retriever:
        assert retriever.search("gate valves").results == ()
    shutil.rmtree(docs)  # the files need not exist to be removed
    report = groundkit.remove_sources(docs, index_dir=index)
    assert sorted(report.removed) == [f"{docs.resolve()}/meters.html", f"{docs.resolve()}/pumps.md"]
    assert groundkit.list_sources(index) == []
    assert groundkit.verify_collection(index).ok


def test_remove_of_nothing_is_refused(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    groundkit.ingest(docs, index_dir=index)
    code, _, err = cli(capsys, "remove", str(tmp_path / "elsewhere"), "--index-dir", index)
    assert code == 4 and "groundkit sources" in err
    code, _, err = cli(capsys, "remove", "https://example.org/x", "--index-dir", index)
    assert code == 4
    assert len(groundkit.list_sources(index)) == 1


def test_a_moved_folder_is_relocated_and_verifies(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    groundkit.ingest(docs, index_dir=index)
    moved = tmp_path / "docs2"
    docs.rename(moved)
    assert not groundkit.verify_collection(index).ok  # every citation is unresolvable now

    again = groundkit.ingest(moved, index_dir=index)
    assert {r.reason for r in again.refused} == {"duplicate"}
    assert "groundkit relocate" in again.refused[0].message

    code, out, _ = cli(capsys, "relocate", str(docs), str(moved), "--index-dir", index)
    assert code == 0 and "relocated 3 documents" in out
    assert [r.root for r in groundkit.list_sources(index)] == [str(moved.resolve())]
    assert groundkit.verify_collection(index).ok
    with Searcher.open(index) as retriever:
        top = retriever.search("water meters").results[0]
        assert top.citation.source_class == "extracted" and retriever.verify(top).ok
    assert groundkit.ingest(moved, index_dir=index).unchanged == [
        "meters.html",
        "pumps.md",
        "sub/valves.md",
    ]


def test_relocate_refuses_content_that_changed_and_changes_nothing(
    docs: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "index")
    groundkit.ingest(docs, index_dir=index)
    moved = tmp_path / "docs2"
    docs.rename(moved)
    (moved / "pumps.md").write_text(PUMPS + "\nEdited after the move.\n", encoding="utf-8")
    (moved / "sub" / "valves.md").unlink()
    code, _, err = cli(capsys, "relocate", str(docs), str(moved), "--index-dir", index)
    assert code == 4
    assert "nothing changed" in err and "2 of 3" in err
    assert "pumps.md: differs" in err and "valves.md" in err
    assert [r.root for r in groundkit.list_sources(index)] == [str(docs.resolve())]
    with pytest.raises(groundkit.IngestionError, match="is not a folder"):
        groundkit.relocate_sources(docs, tmp_path / "nowhere", index_dir=index)


def test_stores_relocate_documents_and_count_sources(store: CollectionStore) -> None:
    from groundkit.ingestion import Indexer

    indexer = Indexer(store)
    document, chunks = indexer.build("/a", "x.md", "hello", "h1", "f1")
    store.write_document(document, chunks, analyzer_identity=indexer.analyzer.identity)
    other: Document
    other, more = indexer.build("/b", "x.md", "other", "h2", "f2")
    store.write_document(other, more, analyzer_identity=indexer.analyzer.identity)
    with pytest.raises(ValueError, match="already holds"):
        store.relocate_document(document.document_id, "/b")
    generation = store.relocate_document(document.document_id, "/c")
    assert store.find_document("/c", "x.md") == Document(
        document.document_id, "x.md", "/c", "h1", 5, 1, "f1"
    )
    assert store.find_document("/a", "x.md") is None
    with store.reader() as reader:
        assert reader.generation == generation
        assert reader.source_counts() == [("/b", "text", 1), ("/c", "text", 1)]
