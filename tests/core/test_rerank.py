"""Reranking: the safe sigmoid, rebuilding results from logits, and the retriever's guard."""

from __future__ import annotations

import math
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conftest import WriteCorpus
from groundkit.contracts import Citation, SearchResult
from groundkit.errors import ConfigurationError, RerankerNotConfiguredError, RetrievalError
from groundkit.ingestion import Indexer
from groundkit.retrieval import RerankOptions, Searcher
from groundkit.retrieval.rerank import LogitReranker, rerank_by_logits, sigmoid
from groundkit.store import CollectionStore

FINITE = st.floats(allow_nan=False, allow_infinity=False)


@given(FINITE)
def test_sigmoid_never_overflows_and_stays_in_range(x: float) -> None:
    y = sigmoid(x)
    assert 0.0 <= y <= 1.0 and math.isfinite(y)


@given(FINITE, FINITE)
def test_sigmoid_is_monotone(a: float, b: float) -> None:
    low, high = sorted((a, b))
    assert sigmoid(low) <= sigmoid(high)


@given(st.floats(min_value=-30, max_value=30))
def test_sigmoid_is_symmetric(x: float) -> None:
    assert sigmoid(x) + sigmoid(-x) == pytest.approx(1.0, abs=1e-15)


@pytest.mark.parametrize("bad", [math.nan, math.inf, -math.inf])
def test_sigmoid_refuses_nan_and_infinity(bad: float) -> None:
    with pytest.raises(ValueError, match="finite"):
        sigmoid(bad)


def result(source: str, start: int, score: float, **citation: object) -> SearchResult:
    text = "x" * 5
    cited = Citation(source, "text", start, start + 5, text, 1, 1, **citation)  # type: ignore[arg-type]
    return SearchResult(text, score, f"doc_{source}", f"chk_{source}_{start}", cited, {"rank": 9})


def test_rerank_by_logits_carries_citations_and_keeps_the_logit() -> None:
    extracted = Citation("scan.pdf", "extracted", 0, 5, "x" * 5, 1, 1, extractor="pdf/1")
    first = SearchResult("x" * 5, 3.0, "doc_a", "chk_a", extracted, {"kind": "p"})
    second = result("b.md", 10, 7.0)
    reranked = rerank_by_logits([second, first], [-2.0, 4.0])
    assert [r.chunk_id for r in reranked] == ["chk_a", second.chunk_id]
    top = reranked[0]
    assert top.citation is extracted and top.citation.extractor == "pdf/1"
    assert top.citation.source_class == "extracted"
    assert top.score == sigmoid(4.0)
    assert dict(top.metadata) == {
        "kind": "p",
        "rank": 1,
        "rerank_logit": 4.0,
        "retrieval_score": 3.0,
    }


def test_rerank_ties_break_on_source_then_offset_and_saturation_keeps_logit_order() -> None:
    items = [result("b.md", 0, 1.0), result("a.md", 50, 1.0), result("a.md", 5, 1.0)]
    tied = rerank_by_logits(items, [0.0, 0.0, 0.0])
    assert [(r.source, r.citation.start_offset) for r in tied] == [
        ("a.md", 5),
        ("a.md", 50),
        ("b.md", 0),
    ]
    saturated = rerank_by_logits(items[:2], [50.0, 40.0])
    assert saturated[0].score == saturated[1].score == 1.0
    assert saturated[0].source == "b.md"  # the higher logit wins even where sigmoid saturates


def test_rerank_by_logits_refuses_a_length_mismatch_and_bad_logits() -> None:
    with pytest.raises(ValueError, match="2 logits for 1 results"):
        rerank_by_logits([result("a.md", 0, 1.0)], [1.0, 2.0])
    with pytest.raises(ValueError, match="finite"):
        rerank_by_logits([result("a.md", 0, 1.0)], [math.nan])


DOCS = {
    "pumps.md": "The pump station lifts water to the tank.\n",
    "valves.md": "Valves control pressure; a pump feeds each valve.\n",
}


def test_search_with_rerank_but_no_reranker_raises(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    Indexer(store).ingest(write_corpus(DOCS))
    with Searcher.of(store.reader()) as retriever:
        with pytest.raises(RerankerNotConfiguredError, match="no reranker"):
            retriever.search("pump", rerank=True)
        assert isinstance(RerankerNotConfiguredError("x"), ConfigurationError)
        with pytest.raises(RerankerNotConfiguredError, match="no reranker"):
            retriever.search("pump", rerank=RerankOptions(depth=5))


def by_length(query: str, passages: Sequence[str]) -> list[float]:
    return [float(len(p)) for p in passages]


def test_search_with_a_reranker_reorders_the_candidates(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    Indexer(store).ingest(write_corpus(DOCS))
    with Searcher.of(store.reader(), reranker=LogitReranker(by_length)) as retriever:
        plain = retriever.search("pump station", top_k=2)
        reranked = retriever.search("pump station", top_k=1, rerank=RerankOptions(depth=2))
    assert plain.results[0].source == "pumps.md"
    assert [r.source for r in reranked.results] == ["valves.md"]  # the longer passage
    assert reranked.metadata["stage"] == "rerank" and reranked.metadata["rerank_depth"] == 2
    assert reranked.results[0].metadata["rerank_logit"] == len(reranked.results[0].content)


class Inventing:
    """A broken reranker that returns a result it was never given."""

    def rerank(self, query: str, results: Sequence[SearchResult], top_k: int) -> list[SearchResult]:
        return [result("elsewhere.md", 0, 1.0)]


def test_a_reranker_answer_outside_its_candidates_is_refused(
    store: CollectionStore, write_corpus: WriteCorpus
) -> None:
    Indexer(store).ingest(write_corpus(DOCS))
    with (
        Searcher.of(store.reader(), reranker=Inventing()) as retriever,
        pytest.raises(RetrievalError, match="not among its candidates"),
    ):
        retriever.search("pump", rerank=True)
