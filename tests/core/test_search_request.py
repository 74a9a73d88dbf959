"""The typed search request: filters are exact, options equal their keywords, the trace is typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import groundkit
from groundkit import (
    ConfigurationError,
    HybridOptions,
    InvalidQueryError,
    Searcher,
    SearchFilter,
    SearchRequest,
)
from groundkit.cli import ExitCode, main

QUERIES = ["leak", "water pressure", "report a burst main", "bill payment", "chlorine"]


@pytest.fixture(scope="module")
def index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("request")
    groundkit.ingest(  # no "nothing here" bar: the reference ranks every admitted chunk
        groundkit.sample_corpus(),
        index_dir=where,
        embedder=groundkit.get_embedder("hash"),
        calibrate=False,
    )
    return where


def unfiltered_then_kept(
    retriever: Searcher, query: str, mode: str, where: SearchFilter, k: int
) -> list[tuple[str, float]]:
    """The filter's reference: rank everything, keep the admitted chunks, cut at ``k``; in
    dense mode, nothing when the best admitted chunk is under the floor (judged per query)."""
    floor = None if mode == "bm25" else -1.0
    every = retriever.search(query, top_k=groundkit.MAX_TOP_K, mode=mode, min_similarity=floor)  # type: ignore[arg-type]
    kept = [
        (r.chunk_id, r.score)
        for r in every.results
        if r.source.startswith(where.source_prefix or "")
        and all(
            value in r.metadata.get(key, ())
            if isinstance(r.metadata.get(key), list | tuple)
            else r.metadata.get(key) == value
            for key, value in where.metadata.items()
        )
    ]
    if mode == "dense" and kept:
        floor_used = retriever.search(query, top_k=1, mode="dense").metadata["min_similarity"]
        if kept[0][1] < floor_used:
            return []
    return kept[:k]


@settings(max_examples=30, deadline=None)
@given(
    query=st.sampled_from(QUERIES),
    prefix=st.sampled_from(["billing/", "operations/", "o", "safety/", "nothing/"]),
    k=st.integers(1, 12),
    mode=st.sampled_from(["bm25", "dense"]),
)
def test_a_filter_ranks_exactly_the_admitted_chunks(
    index: Path, query: str, prefix: str, k: int, mode: str
) -> None:
    where = SearchFilter(source_prefix=prefix)
    with Searcher.open(index) as retriever:
        got = retriever.search(query, top_k=k, mode=mode, where=where)  # type: ignore[arg-type]
        want = unfiltered_then_kept(retriever, query, mode, where, k)
    assert [(r.chunk_id, r.score) for r in got.results] == want
    assert all(r.source.startswith(prefix) for r in got.results)
    assert got.metadata["filter"]["source_prefix"] == prefix


def test_a_metadata_filter_matches_list_fields_by_membership(index: Path) -> None:
    with Searcher.open(index) as retriever:
        some = retriever.search("leak", top_k=5).results[0]
        heading = some.metadata["heading_path"][0]
        where = SearchFilter(metadata={"heading_path": heading})
        got = retriever.search("leak", top_k=10, where=where)
        assert got.results and all(heading in r.metadata["heading_path"] for r in got.results)
        assert [r.chunk_id for r in got.results] == [
            chunk for chunk, _ in unfiltered_then_kept(retriever, "leak", "bm25", where, 10)
        ]
        nothing = retriever.search("leak", where=SearchFilter(metadata={"heading_path": "zz"}))
        assert nothing.results == ()


def test_a_search_request_equals_its_keywords(index: Path) -> None:
    """The keyword form is a convenience that builds the same ``SearchRequest``."""
    with Searcher.open(index) as retriever:
        options = HybridOptions(rrf_k=10, depth=40, weights=(1.0, 0.5))
        typed = retriever.search(
            SearchRequest("who fixes a burst main", mode="hybrid", hybrid=options)
        )
        loose = retriever.search("who fixes a burst main", mode="hybrid", hybrid=options)
        assert typed.to_dict()["results"] == loose.to_dict()["results"]
        assert typed.trace is not None and typed.trace.stage == "fusion"
        fusion = typed.metadata["fusion"]
        assert {k: fusion[k] for k in ("rrf_k", "depth", "weights")} == {
            "rrf_k": 10,
            "depth": 40,
            "weights": [1.0, 0.5],
        }
        with pytest.raises(ConfigurationError, match="not both"):
            retriever.search(SearchRequest("x"), top_k=5)
        with pytest.raises(ConfigurationError, match="hybrid' only"):
            retriever.search("x", hybrid=HybridOptions())
        with pytest.raises(ConfigurationError, match="weights"):
            HybridOptions(weights=(0.0, 0.0))


@pytest.mark.parametrize(
    ("fields", "error", "match"),
    [
        ({"query": " "}, InvalidQueryError, "empty"),
        ({"query": b"leak"}, InvalidQueryError, "must be a string"),
        ({"top_k": 0}, InvalidQueryError, "top_k"),
        ({"top_k": True}, InvalidQueryError, "top_k"),
        ({"mode": "sparse"}, InvalidQueryError, "unknown search mode"),
        ({"score_threshold": float("nan")}, InvalidQueryError, "finite"),
        ({"mode": "bm25", "min_similarity": 0.2}, InvalidQueryError, "score_threshold"),
        ({"mode": "dense", "hybrid": HybridOptions()}, InvalidQueryError, "hybrid' only"),
        ({"mode": "dense", "prefix": True}, InvalidQueryError, "no BM25 leg"),
        ({"lexical_bar": 1.5}, InvalidQueryError, "lexical_bar must be a number from 0 to 1"),
        ({"lexical_bar": True}, InvalidQueryError, "lexical_bar must be a number"),
        ({"mode": "hybrid", "lexical_bar": 0.3}, InvalidQueryError, "min_lexical_share"),
        ({"mode": "dense", "lexical_bar": 0.3}, InvalidQueryError, "no BM25 leg"),
        ({"fuzzy": "yes"}, InvalidQueryError, "true or false"),
        ({"rerank": True}, InvalidQueryError, "RerankOptions"),
    ],
)
def test_a_search_request_is_refused_when_made(
    fields: dict[str, Any], error: type[Exception], match: str
) -> None:
    """Every check that does not need the collection runs when the request is made, and
    refuses with ``InvalidQueryError`` (REST's 422, the CLI's exit 2)."""
    with pytest.raises(error, match=match):
        SearchRequest(**{"query": "leak", **fields})


@pytest.mark.parametrize(
    ("make", "match"),
    [
        (lambda: HybridOptions(weights=None), "weights"),  # type: ignore[arg-type]
        (lambda: HybridOptions(rrf_k=10**400), "rrf_k"),
        (lambda: SearchFilter(metadata=None), "metadata must be a mapping"),  # type: ignore[arg-type]
    ],
)
def test_malformed_options_are_configuration_errors(make: Any, match: str) -> None:
    with pytest.raises(InvalidQueryError, match=match):
        make()


def test_a_request_without_a_mode_is_checked_against_the_collections_default(
    index: Path,
) -> None:
    request = SearchRequest("leak", hybrid=HybridOptions())  # fine until the mode is known
    with Searcher.open(index) as retriever:
        assert retriever.default_mode == "bm25"
        with pytest.raises(ConfigurationError, match="hybrid' only"):
            retriever.search(request)


def test_the_trace_names_the_path_that_ran(index: Path) -> None:
    with Searcher.open(index) as retriever:
        plain = retriever.search("leak")
        filtered = retriever.search("leak", where=SearchFilter(source_prefix="billing/"))
    assert plain.trace is not None and plain.trace.path == plain.metadata["path"]
    assert filtered.metadata["path"] == "python-filtered"
    assert plain.metadata["stage"] == "bm25" and "legs" not in plain.metadata


@pytest.mark.parametrize(
    ("top_k", "threshold"), [(0, None), (1001, None), (True, None), (5, float("nan"))]
)
def test_an_invalid_request_is_a_usage_error(
    index: Path, top_k: int, threshold: float | None
) -> None:
    with Searcher.open(index) as retriever, pytest.raises(InvalidQueryError):
        retriever.search("leak", top_k=top_k, score_threshold=threshold)
    assert issubclass(InvalidQueryError, ConfigurationError)


def test_the_cli_filters_like_the_library(index: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import json

    code = main(
        ["search", "leak", "--index-dir", str(index), "--json", "--source-prefix", "billing/"]
    )
    payload = json.loads(capsys.readouterr().out)
    assert code == ExitCode.OK and payload["results"]
    assert all(r["source"].startswith("billing/") for r in payload["results"])
    assert main(["search", "leak", "--index-dir", str(index), "--where", "novalue"]) == (
        ExitCode.USAGE
    )
