"""Highlights: the spans of a query's words in each result's cited text, and snippets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import WriteCorpus
from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.tokenize import token_spans, tokenize, wanted_token_spans
from groundkit.cli import main
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher, highlight_spans, snippet
from groundkit.store import MemoryStore

ANALYZER = Analyzer()
MIXED = st.lists(
    st.sampled_from(
        [
            *"abc XYZ.'’,01\n\t\u00a0-",
            "é",
            "e\u0301",
            "ß",
            "ﬁ",
            "İ",
            "東",
            "京",
            "都",
            "ｶ",
            "ﾞ",
            "한",
            "\u1100",
            "\u1161",
            "½",
            *["क", "\u093f", "ा", "\u0b47", "\u0b3e", "Ω", "ς", "ǅ"],
        ]
    ),
    max_size=40,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(MIXED, st.text(max_size=40)))
def test_token_spans_are_the_tokens_and_index_their_words(text: str) -> None:
    spans = list(token_spans(text))
    assert [token for token, _, _ in spans] == list(tokenize(text))
    previous = 0
    for token, start, end in spans:
        assert 0 <= start < end <= len(text)
        assert start >= previous  # in order (CJK bigrams overlap by one character)
        previous = start
        assert token in list(tokenize(text[start:end]))  # the span alone yields the token


ASCII_JOINS = st.lists(
    st.sampled_from([*"ab01_ .,'-\n", "ab", "don't", "e.g.", "1,000.5", "a'b", "_x", "x_"]),
    max_size=30,
).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(MIXED, ASCII_JOINS, st.text(max_size=40)), st.data())
def test_wanted_token_spans_are_token_spans_filtered(text: str, data: st.DataObject) -> None:
    """The fast paths (``str.find`` on ASCII, one scan elsewhere) find exactly the spans of
    the wanted tokens, including tokens held together by ``'``, ``.`` and ``,``."""
    spans = list(token_spans(text))
    tokens = sorted({token for token, _, _ in spans} | {"b", "0", "x"})
    wanted = set(data.draw(st.lists(st.sampled_from(tokens), max_size=4)))
    expected = [(start, end) for token, start, end in spans if token in wanted]
    assert wanted_token_spans(text, wanted) == expected


@settings(max_examples=200, deadline=None)
@given(MIXED)
def test_term_spans_give_the_analyzers_terms(text: str) -> None:
    assert [term for term, _, _ in ANALYZER.term_spans(text)] == ANALYZER.terms(text)


@pytest.mark.parametrize(
    ("query", "text", "marked"),
    [
        ("runs", "The Runner was running; he runs daily.", ["running", "runs"]),
        (
            "connection",
            "Connected, connecting: connections.",
            ["Connected", "connecting", "connections"],
        ),
        ("john", "John's book and JOHN.", ["John's", "JOHN"]),
        ("cafe strasse", "Ein Café in der Straße; ein cafe.", ["Straße", "cafe"]),
        ("café", "CAFÉ and cafe\u0301 and cafe", ["CAFÉ", "cafe\u0301"]),
        ("file", "A ﬁle, two ﬁles.", ["ﬁle", "ﬁles"]),
        ("東京都", "私は東京都庁に行った。京都も。", ["東京都", "京都"]),
        ("the of", "the house of cards", []),  # stopwords match nothing
        ("Ωmega", "ωmega and ΩMEGA", ["ωmega", "ΩMEGA"]),
    ],
)
def test_highlights_mark_the_surface_words_of_matching_terms(
    query: str, text: str, marked: list[str]
) -> None:
    spans = highlight_spans(ANALYZER, frozenset(ANALYZER.terms(query)), text)
    assert [text[start:end] for start, end in spans] == marked
    wanted = set(ANALYZER.terms(query))
    for start, end in spans:
        assert wanted & set(ANALYZER.terms(text[start:end]))


def test_search_results_carry_highlights_in_their_cited_text(write_corpus: WriteCorpus) -> None:
    root = write_corpus(
        {
            "a.md": "# Pumps\n\nThe pumping stations pumped water; a pump failed.\n",
            "b.md": "# Straßen\n\nDie Straße am Café: Wasserrohrbruch.\n",
            "c.md": "# 東京\n\n東京都の水道局は水質を管理します。\n",
        }
    )
    store = MemoryStore("t")
    Indexer(store).ingest(root)
    with Searcher.of(store.reader()) as retriever:
        for query, expected in (
            ("pump", {"Pumps", "pumping", "pumped", "pump"}),  # the heading is in the chunk
            ("strasse café", {"Straße", "Café"}),
            ("東京都 水質", {"東京", "東京都", "水質"}),
        ):
            response = retriever.search(query, top_k=1)
            (result,) = response.results
            words = {result.content[s:e] for s, e in result.highlights}
            assert words == expected, query
            assert response.to_dict()["results"][0]["highlights"] == [
                list(span) for span in result.highlights
            ]
            cited = result.citation
            source = (root / cited.source).read_text(encoding="utf-8")
            for s, e in result.highlights:  # offsets index the cited text, hence the source
                assert source[cited.start_offset + s : cited.start_offset + e] == cited.text[s:e]
        quiet = retriever.search("pump", top_k=1, highlight=False)
        assert quiet.results[0].highlights == ()


def test_snippet_centres_on_the_densest_highlights() -> None:
    filler = "word " * 60  # 300 code points without a match
    text = "pump " + filler + "pump valve pump " + filler
    start = text.index("pump valve")
    spans = [(0, 4), (start, start + 4), (start + 5, start + 10), (start + 11, start + 15)]
    cut = snippet(text, spans, width=80)
    assert cut.start < start and cut.end > start + 15
    assert cut.text == text[cut.start : cut.end] and len(cut.text) <= 80
    assert [cut.text[s:e] for s, e in cut.highlights] == ["pump", "valve", "pump"]
    assert cut.cut_before and cut.cut_after
    assert not text[cut.start - 1].isalnum() or not text[cut.start].isalnum()  # whole words
    assert cut.render("[", "]").startswith("…") and "[pump] [valve] [pump]" in cut.render("[", "]")
    whole = snippet("short  text\n here", [(0, 5)])
    assert (whole.start, whole.end, whole.render("*", "*")) == (0, 17, "*short* text here")
    assert snippet(text, [], width=50).start == 0


def test_cli_json_has_highlights_and_plain_output_marks_nothing_off_a_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = str(tmp_path / "idx")
    assert main(["ingest", "sample", "--index-dir", index, "--quiet"]) == 0
    assert main(["search", "reporting leaks", "--index-dir", index, "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    first = payload["results"][0]
    assert first["highlights"]
    wanted = set(ANALYZER.terms("reporting leaks"))
    for start, end in first["highlights"]:
        assert wanted & set(ANALYZER.terms(first["content"][start:end]))
    assert main(["search", "reporting leaks", "--index-dir", index]) == 0
    assert "\033[" not in capsys.readouterr().out
