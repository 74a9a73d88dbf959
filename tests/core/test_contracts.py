"""Value types: validation, immutability, and content-derived ids."""

from __future__ import annotations

import dataclasses
import math

import pytest

from groundkit.contracts import (
    Chunk,
    Citation,
    Document,
    SearchResult,
    chunk_id_for,
    content_hash,
    document_id_for,
)
from groundkit.lines import LineIndex
from groundkit.responses import SearchResponse


def citation(**overrides: object) -> Citation:
    fields: dict[str, object] = {
        "source": "a.md",
        "source_class": "text",
        "start_offset": 2,
        "end_offset": 5,
        "text": "llo",
        "start_line": 1,
        "end_line": 1,
    }
    fields.update(overrides)
    return Citation(**fields)  # type: ignore[arg-type]


def test_citation_is_frozen() -> None:
    with pytest.raises(dataclasses.FrozenInstanceError):
        citation().start_offset = 3  # type: ignore[misc]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ({"start_offset": 6}, "start_offset <= end_offset"),
        ({"start_offset": -1}, "0 <= start_offset"),
        ({"text": "llo!"}, "code points"),
        ({"start_line": 0}, "start_line"),
        ({"end_line": 0}, "start_line <= end_line"),
        ({"source_class": "pdf"}, "source_class"),
        ({"source": ""}, "source"),
    ],
)
def test_citation_validation(overrides: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        citation(**overrides)


def test_source_classes_and_their_extractor_identity() -> None:
    assert citation(source_class="snapshot").source_class == "snapshot"
    assert Document("d", "a.html", "https://x/", "h", 1, 1, "f", "snapshot", '{"n":1}').extractor
    assert Document("d", "a.txt", "https://x/", "h", 1, 1, "f", "snapshot").extractor is None
    with pytest.raises(ValueError, match="source_class"):
        Document("d", "a.md", "/r", "h", 1, 1, "f", source_class="web")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="extractor identity"):
        Document("d", "a.pdf", "/r", "h", 1, 1, "f", source_class="extracted")
    with pytest.raises(ValueError, match="extractor identity"):
        Document("d", "a.md", "/r", "h", 1, 1, "f", extractor='{"n":1}')
    with pytest.raises(ValueError, match="extractor identity"):
        citation(source_class="extracted")
    with pytest.raises(ValueError, match="start_page"):
        citation(start_page=2, end_page=1)


def test_document_source_must_be_relative_posix() -> None:
    with pytest.raises(ValueError, match="relative POSIX"):
        Document("d", "/etc/passwd", "/r", "h", 1, 1, "f")
    with pytest.raises(ValueError, match="relative POSIX"):
        Document("d", "a\\b.md", "/r", "h", 1, 1, "f")


def test_ids_are_derived_from_content_and_position() -> None:
    h = content_hash("hello")
    assert document_id_for("a.md", h) == document_id_for("a.md", h)
    assert document_id_for("a.md", h) != document_id_for("b.md", h)
    assert document_id_for("a.md", h) != document_id_for("a.md", content_hash("hellO"))
    d = document_id_for("a.md", h)
    assert chunk_id_for(d, 0, 0, 5) == chunk_id_for(d, 0, 0, 5)
    assert chunk_id_for(d, 0, 0, 5) != chunk_id_for(d, 1, 0, 5)
    assert d.startswith("doc_") and chunk_id_for(d, 0, 0, 5).startswith("chk_")


def test_chunk_metadata_is_read_only_copy() -> None:
    source = {"heading_path": ["A"]}
    chunk = Chunk("c", "d", 0, "ab", 0, 2, 1, 1, metadata=source)
    source["kind"] = "x"  # type: ignore[assignment]
    assert "kind" not in chunk.metadata
    with pytest.raises(TypeError):
        chunk.metadata["kind"] = "y"  # type: ignore[index]


def test_search_result_content_must_match_citation_and_score_be_finite() -> None:
    c = citation()
    with pytest.raises(ValueError, match="cited text"):
        SearchResult("other", 1.0, "d", "c", c)
    with pytest.raises(ValueError, match="finite"):
        SearchResult("llo", float("nan"), "d", "c", c)


def test_search_result_highlights_must_be_sorted_disjoint_spans_of_the_content() -> None:
    c = citation()  # content "llo"
    assert SearchResult("llo", 1.0, "d", "c", c, highlights=[(0, 1), (2, 3)]).highlights == (
        (0, 1),
        (2, 3),
    )
    for bad in ([(0, 4)], [(1, 1)], [(2, 3), (0, 1)], [(0, 2), (1, 3)], [(0.0, 1)]):
        with pytest.raises(ValueError, match="highlights"):
            SearchResult("llo", 1.0, "d", "c", c, highlights=bad)  # type: ignore[arg-type]


def test_search_response_json_shape() -> None:
    result = SearchResult("llo", 1.5, "doc_1", "chk_1", citation(), {"rank": 1})
    payload = SearchResponse("q", (result,), {"stage": "bm25"}).to_dict()
    assert set(payload) == {"query", "results", "total_results", "metadata"}
    assert payload["total_results"] == 1
    assert set(payload["results"][0]) == {
        "content",
        "score",
        "document_id",
        "chunk_id",
        "source",
        "source_class",
        "start_offset",
        "end_offset",
        "start_line",
        "end_line",
        "start_page",
        "end_page",
        "extractor",
        "metadata",
        "highlights",
    }


@pytest.mark.parametrize(
    ("text", "start", "end", "lines"),
    [
        ("abc", 0, 3, (1, 1)),
        ("a\nb\nc", 2, 3, (2, 2)),
        ("a\nb\nc", 0, 5, (1, 3)),
        ("a\r\nb", 3, 4, (2, 2)),
        ("a\n", 0, 2, (1, 1)),
        ("a\n\nb", 3, 4, (3, 3)),
        ("abc", 1, 1, (1, 1)),
    ],
)
def test_line_index(text: str, start: int, end: int, lines: tuple[int, int]) -> None:
    assert LineIndex(text).span(start, end) == lines


def test_a_result_of_a_record_equals_the_checked_one() -> None:
    """``SearchResult.of_record`` skips only checks that hold by construction."""
    citation = Citation(
        source="a.txt",
        source_class="text",
        start_offset=0,
        end_offset=5,
        text="hello",
        start_line=1,
        end_line=1,
    )
    made = SearchResult.of_record(citation, 1.5, "doc_a", "chk_a", {"rank": 1})
    checked = SearchResult(
        content="hello",
        score=1.5,
        document_id="doc_a",
        chunk_id="chk_a",
        citation=citation,
        metadata={"rank": 1},
    )
    assert made == checked and made.highlights == () and made.content == citation.text
    with pytest.raises(TypeError):
        made.metadata["rank"] = 2  # type: ignore[index]
    with pytest.raises(ValueError, match="finite"):
        SearchResult.of_record(citation, math.nan, "doc_a", "chk_a", {})
