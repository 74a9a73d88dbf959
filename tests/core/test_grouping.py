"""Results grouped by page: one entry per source, its best passages beneath it, pages ranked by
their best passage plus half their second (adr/0074), each passage still cited and verifiable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import groundkit
from groundkit import ConfigurationError, GroupOptions, Searcher, SearchRequest
from groundkit.cli import ExitCode, main
from groundkit.contracts import Citation, SearchResult
from groundkit.retrieval.grouping import grouped

QUERIES = ["leak", "water pressure", "report a burst main", "bill payment", "chlorine", "the"]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("grouping")
    groundkit.ingest(
        groundkit.sample_corpus(), index_dir=where, embedder=groundkit.get_embedder("hash")
    )
    return where


def reference(
    passages: list[tuple[str, str, float]], pages: int, per_page: int
) -> list[tuple[float, list[tuple[str, str, float]]]]:
    """Group a ranked passage list by hand: a page scores its best passage plus half its
    second (when positive); pages by that score, then by their best passage's rank; rank
    order within."""
    first: dict[str, int] = {}
    kept: dict[str, list[tuple[str, str, float]]] = {}
    for position, (doc, chunk, score) in enumerate(passages):
        first.setdefault(doc, position)
        kept.setdefault(doc, []).append((doc, chunk, score))

    def page_score(doc: str) -> float:
        scores = [score for _, _, score in kept[doc]] + [0.0]
        return scores[0] + max(scores[1], 0.0) / 2

    order = sorted(kept, key=lambda doc: (-page_score(doc), first[doc]))
    return [(page_score(doc), kept[doc][:per_page]) for doc in order[:pages]]


@settings(max_examples=40, deadline=None)
@given(
    query=st.sampled_from(QUERIES),
    k=st.integers(1, 8),
    per_page=st.integers(1, 4),
    depth=st.sampled_from([None, 8, 20]),
    mode=st.sampled_from(["bm25", "dense", "hybrid"]),
)
def test_groups_are_the_ranked_passages_grouped(
    index: Path, query: str, k: int, per_page: int, depth: int | None, mode: str
) -> None:
    if depth is not None and depth < k:
        depth = k
    options = GroupOptions(passages=per_page, depth=depth)
    with Searcher.open(index) as retriever:
        got = retriever.search(SearchRequest(query, k, mode, group=options))  # type: ignore[arg-type]
        flat = retriever.search(
            SearchRequest(query, options.depth_for(k), mode)  # type: ignore[arg-type]
        )
    want = reference([(r.document_id, r.chunk_id, r.score) for r in flat.results], k, per_page)
    assert got.groups is not None
    assert [
        (g.score, [(r.document_id, r.chunk_id, r.score) for r in g.results]) for g in got.groups
    ] == want
    assert [r.chunk_id for g in got.groups for r in g.results] == [r.chunk_id for r in got.results]
    assert len({g.document_id for g in got.groups}) == len(got.groups) <= k
    assert got.metadata["group"] == {
        "passages": per_page,
        "depth": options.depth_for(k),
        "pages": len(want),
    }
    scores = [g.score for g in got.groups]
    assert scores == sorted(scores, reverse=True)
    for group in got.groups:
        best = group.results[0].score
        assert best <= group.score <= best + max(best, 0) / 2


def test_grouped_passages_verify_and_serialize(index: Path) -> None:
    with Searcher.open(index) as retriever:
        got = retriever.search("water pressure leak", top_k=3, mode="bm25", group=True)
        assert got.groups is not None and len(got.groups) == 3
        assert all(retriever.verify(r).ok for r in got.results)
        assert any(len(g.results) > 1 for g in got.groups)  # a page with several passages
        assert all(r.highlights for r in got.results)
    payload = got.to_dict()
    assert [g["source"] for g in payload["groups"]] == [g.source for g in got.groups]
    for group, item in zip(got.groups, payload["groups"], strict=True):
        chunks = [payload["results"][i]["chunk_id"] for i in item["results"]]
        assert chunks == [r.chunk_id for r in group.results]
        assert item["score"] == group.score


def test_an_ungrouped_search_has_no_groups(index: Path) -> None:
    with Searcher.open(index) as retriever:
        got = retriever.search("leak", mode="bm25")
    assert got.groups is None
    assert "groups" not in got.to_dict() and "group" not in got.metadata


@pytest.mark.parametrize(
    ("options", "top_k", "message"),
    [
        ({"passages": 0}, 3, "passages must be an integer from 1"),
        ({"passages": True}, 3, "passages must be an integer from 1"),
        ({"depth": 2}, 3, "group depth must be an integer from top_k"),
        ({"depth": "9"}, 3, "group depth must be an integer"),
    ],
)
def test_bad_group_options_are_refused_when_made(
    options: dict[str, object], top_k: int, message: str
) -> None:
    with pytest.raises(ConfigurationError, match=message):
        SearchRequest("leak", top_k, group=GroupOptions(**options))  # type: ignore[arg-type]


def test_a_request_with_group_keywords_too_is_refused(index: Path) -> None:
    with Searcher.open(index) as retriever, pytest.raises(ConfigurationError, match="not both"):
        retriever.search(SearchRequest("leak"), group=True)


def test_the_cli_groups_by_page(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["search", "water pressure leak", "--index-dir", str(index), "--mode", "bm25"]
    assert main([*args, "--top-k", "2", "--group-passages", "2", "--json", "--verify"]) == (
        ExitCode.OK
    )
    payload = json.loads(capsys.readouterr().out)
    assert len(payload["groups"]) == 2
    assert all(1 <= len(g["results"]) <= 2 for g in payload["groups"])
    assert all(r["verification"]["verdict"] == "verified" for r in payload["results"])
    assert main([*args, "--top-k", "2", "--group"]) == ExitCode.OK
    text = capsys.readouterr().out
    first = payload["groups"][0]["source"]
    assert text.startswith(f" 1. {first}  page score ")
    assert "    - " + first + ":" in text


def test_a_page_scores_its_best_passage_plus_half_its_second() -> None:
    def passage(page: str, score: float, at: int) -> SearchResult:
        cited = Citation(f"{page}.md", "text", at, at + 5, "x" * 5, 1, 1)
        return SearchResult("x" * 5, score, f"doc_{page}", f"chk_{page}_{at}", cited)

    ranked = [  # best first, as a search ranks them; reranker logits can be negative
        passage("a", 5.0, 0),
        passage("b", 4.0, 0),
        passage("b", 3.0, 10),
        passage("e", 2.0, 0),
        passage("f", 1.5, 0),
        passage("f", 1.0, 10),
        passage("b", 1.0, 20),  # a third passage adds nothing
        passage("c", -1.0, 0),
        passage("d", -1.5, 0),
        passage("c", -2.0, 10),  # a negative second adds nothing either
    ]
    pages = grouped(ranked, 10, 2)
    assert [(page[0].document_id, score) for score, page in pages] == [
        ("doc_b", 5.5),
        ("doc_a", 5.0),
        ("doc_e", 2.0),  # equal to f's 2.0: e's best passage ranks first
        ("doc_f", 2.0),
        ("doc_c", -1.0),
        ("doc_d", -1.5),
    ]
    assert [len(page) for _, page in pages] == [2, 1, 1, 2, 2, 1]
    assert [len(page) for _, page in grouped(ranked, 2, 1)] == [1, 1]
