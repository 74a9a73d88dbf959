"""Citation verification: verified, drifted, unresolvable, each with a reason and no leak."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from groundkit.contracts import Citation
from groundkit.errors import RetrievalError
from groundkit.retrieval import resolve_citation, verify_citation

TEXT = "line one\nthe 💧 drop and ü\nthird\n"


def cite(source: str, start: int, end: int, text: str | None = None) -> Citation:
    body = TEXT[start:end] if text is None else text
    return Citation(source, "text", start, end, body, 1, 2)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "root"
    folder.mkdir()
    (folder / "a.md").write_text(TEXT, encoding="utf-8")
    return folder


def test_verified_with_astral_characters_in_code_points(root: Path) -> None:
    start = TEXT.index("💧")
    citation = cite("a.md", start, start + 8)
    assert citation.text == "💧 drop a"
    assert resolve_citation(citation, root) == citation.text
    outcome = verify_citation(citation, root)
    assert outcome.verdict == "verified" and outcome.ok


def test_drifted_when_the_span_changed(root: Path) -> None:
    citation = cite("a.md", 0, 8)
    (root / "a.md").write_text("LINE ONE\n" + TEXT[9:], encoding="utf-8")
    outcome = verify_citation(citation, root)
    assert outcome.verdict == "drifted"
    assert "line one" not in outcome.reason.lower().replace("a.md", "")


def test_drifted_when_the_file_shrank_past_the_span(root: Path) -> None:
    citation = cite("a.md", 20, 30)
    (root / "a.md").write_text("short", encoding="utf-8")
    assert verify_citation(citation, root).verdict == "drifted"


@pytest.mark.parametrize("damage", ["missing", "not_utf8", "outside", "nul"])
def test_unresolvable(root: Path, tmp_path: Path, damage: str) -> None:
    citation = cite("a.md", 0, 8)
    target = root / "a.md"
    if damage == "missing":
        target.unlink()
    elif damage == "not_utf8":
        target.write_bytes(b"line one\xff\xfe")
    elif damage == "nul":
        target.write_bytes(b"line one\x00")
    else:
        (tmp_path / "elsewhere.md").write_text(TEXT, encoding="utf-8")
        target.unlink()
        os.symlink(tmp_path / "elsewhere.md", target)
    outcome = verify_citation(citation, root)
    assert outcome.verdict == "unresolvable"
    assert "a.md" in outcome.reason
    assert "line one" not in outcome.reason
    with pytest.raises(RetrievalError) as info:
        resolve_citation(citation, root)
    assert info.value.verdict == "unresolvable"


def test_traversal_in_the_source_is_unresolvable(root: Path, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text(TEXT, encoding="utf-8")
    outcome = verify_citation(cite("../secret.md", 0, 8), root)
    assert outcome.verdict == "unresolvable"
    assert "outside the base directory" in outcome.reason


def test_a_fetched_page_citation_is_read_from_the_folder_it_is_given(root: Path) -> None:
    """Callers pass the page archive (``citation_root``), never the URL: no fetch happens."""
    citation = Citation("a.md", "snapshot", 0, 8, TEXT[:8], 1, 1)
    assert verify_citation(citation, root).verdict == "verified"
    assert verify_citation(citation, "https://example.org/a.md").verdict == "unresolvable"


def test_verify_reads_each_source_once_per_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # issue 29 item 18: verify re-read the whole source for every chunk (O(chunks x bytes))
    import groundkit
    from groundkit.config import ChunkerSettings, IngestSettings
    from groundkit.retrieval import citations

    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name in ("a.txt", "b.txt"):
        paragraphs = [f"{name} paragraph {n} about pumps and valves." for n in range(40)]
        (corpus / name).write_text("\n\n".join(paragraphs), encoding="utf-8")
    (corpus / "c.txt").write_text("a single short chunk", encoding="utf-8")
    index = tmp_path / "index"
    settings = IngestSettings(chunker=ChunkerSettings(target_chars=64, overlap_chars=0))
    groundkit.ingest(corpus, index_dir=index, settings=settings)
    reads: list[str] = []
    real = citations.read_bytes

    def counting(root: str | Path, source: str, *, max_bytes: int) -> bytes:
        reads.append(source)
        return real(root, source, max_bytes=max_bytes)

    monkeypatch.setattr(citations, "read_bytes", counting)
    outcome = groundkit.verify_collection(index)
    assert outcome.ok and outcome.checked > 20
    assert sorted(reads) == ["a.txt", "b.txt", "c.txt"]
    (corpus / "a.txt").unlink()  # a failed read is remembered for the run, not retried
    reads.clear()
    outcome = groundkit.verify_collection(index)
    assert outcome.unresolvable > 10 and sorted(reads) == ["a.txt", "b.txt", "c.txt"]
