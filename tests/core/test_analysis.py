"""Tokenization, stopwords and the analyzer identity."""

from __future__ import annotations

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.stopwords import LUCENE_ENGLISH
from groundkit.analysis.tokenize import tokenize
from groundkit.analysis.tokenize import tokens as fast_tokens
from groundkit.errors import ConfigurationError, IndexIdentityError


def test_lucene_english_stopwords_are_the_33_lucene_words() -> None:
    assert len(LUCENE_ENGLISH) == 33
    assert {"the", "a", "with", "will", "such"} <= LUCENE_ENGLISH
    assert "you" not in LUCENE_ENGLISH


@pytest.mark.parametrize(
    ("text", "tokens"),
    [
        ("Hello, WORLD!", ["hello", "world"]),
        ("ﬁle Ｆｕｌｌwidth", ["file", "fullwidth"]),  # NFKC
        ("Straße", ["strasse"]),  # casefold
        ("covid-19 in 2020", ["covid", "19", "in", "2020"]),  # digits kept
        ("café naïve", ["café", "naïve"]),  # accents kept, not stripped
        ("हिन्दी भाषा", ["हिन्दी", "भाषा"]),  # combining vowel signs stay in the word
        ("مرحبا بالعالم", ["مرحبا", "بالعالم"]),
        ("東京都", ["東京", "京都"]),  # CJK bigrams
        ("猫", ["猫"]),
        ("서울시 map", ["서울", "울시", "map"]),
        ("💧 ✓ ...", []),
        ("Don't split e.g. O’Neil", ["don't", "split", "e.g", "o’neil"]),  # UAX #29 MidLetter
        ("p<0.05, 1,000.5 units", ["p", "0.05", "1,000.5", "units"]),  # UAX #29 MidNum
        ("end. Next, 3.x and a.1", ["end", "next", "3", "x", "and", "a", "1"]),  # no join
    ],
)
def test_tokenize(text: str, tokens: list[str]) -> None:
    assert list(tokenize(text)) == tokens


@pytest.mark.parametrize(
    "text",
    [
        "Die Wasserversorgung für Häuser muss geprüft werden.",
        "L'eau potable est analysée chaque semaine à Montréal.",
        "饮用水每周检测一次。",
        "飲料水は毎週検査されます。",
        "يتم فحص مياه الشرب كل أسبوع",
    ],
)
def test_non_english_text_is_never_reduced_to_nothing(text: str) -> None:
    terms = Analyzer().terms(text)
    assert terms and all(terms)


@given(st.text())
def test_terms_are_non_empty_strings_for_any_text(text: str) -> None:
    assert all(isinstance(t, str) and t for t in Analyzer().terms(text))


def test_analyzer_removes_stopwords_and_stems() -> None:
    assert Analyzer().terms("The running of the pumps") == ["run", "pump"]
    assert Analyzer(stemmer="none").terms("The running") == ["running"]
    assert Analyzer(stopwords="none", stemmer="none").terms("The running") == ["the", "running"]


def test_possessives_are_dropped_before_stopwords_and_stemming() -> None:
    assert Analyzer().terms("The utility's pumps and Riverbend’s valves") == [
        "util",
        "pump",
        "riverbend",
        "valv",
    ]
    assert Analyzer(stemmer="none").terms("it's") == []  # "it" is a stopword


def test_snowball_differs_from_porter_where_the_algorithms_do() -> None:
    assert Analyzer(stemmer="porter").terms("generously") == ["gener"]
    assert Analyzer(stemmer="snowball-english").terms("generously") == ["generous"]


def test_identity_names_every_parameter() -> None:
    identity = Analyzer().identity
    assert identity["stemmer"] == "porter"
    assert identity["stopwords"] == "lucene-english"
    assert {"name", "version", "cjk"} <= set(identity)
    assert Analyzer().identity_json == Analyzer().identity_json
    assert Analyzer().identity != Analyzer(stemmer="snowball-english").identity


def test_unknown_options_are_configuration_errors() -> None:
    with pytest.raises(ConfigurationError, match="stemmer"):
        Analyzer(stemmer="lancaster")
    with pytest.raises(ConfigurationError, match="stopword"):
        Analyzer(stopwords="klingon")


def test_from_identity_round_trips_and_refuses_what_it_cannot_reproduce() -> None:
    analyzer = Analyzer(stemmer="snowball-english")
    assert Analyzer.from_identity(analyzer.identity, subject="c") == analyzer
    future = {**analyzer.identity, "version": 999}
    with pytest.raises(IndexIdentityError, match="cannot reproduce"):
        Analyzer.from_identity(future, subject="c")


PIECES = [
    *"ab z09'.,-_ \n\u2019\x1c\x0b\r",
    "é",
    "ß",
    "Ａ",
    "ﬁ",
    "中文",
    "日本",
    "한",
    "क्षि",
    "ّ",
    "\u0301",
]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=40).map("".join))
def test_the_fast_token_paths_equal_the_reference_tokenizer(text: str) -> None:
    """ASCII text, other text without marks or CJK, text with combining marks, and CJK text
    each take their own path; all give ``tokenize``'s tokens."""
    assert fast_tokens(text) == list(tokenize(text))


ASCII_PIECES = [*"aZ z09'.,-_ \n\x1c\x0b\r!", "ab", "09", "a.b", "0.9", "1,0", "a'b", "_9"]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(ASCII_PIECES), max_size=40).map("".join))
@example("0.9 1,000 don't e.g. a..b 1.a a.1 x'_ 2,b _.a")
def test_ascii_text_cut_by_translate_and_split_equals_the_word_pattern(text: str) -> None:
    """ASCII text skips the regex walk (``translate``, ``sub``, ``split``): the same words,
    joins between letters and between digits included."""
    assert fast_tokens(text) == list(tokenize(text))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.sampled_from(["Running", "runs", "the", "pump's", "Valves", "x", "ß", "é"]), max_size=40
    ),
    st.integers(min_value=1, max_value=6),
)
def test_terms_are_the_same_whatever_the_cache_holds_or_forgets(
    words: list[str], limit: int
) -> None:
    """``terms`` looks cached words up in bulk; a cache that starts over mid-text (a tiny
    limit here) changes nothing: each term is the word's own analysis."""
    from groundkit.analysis import analyzer as module

    text = " ".join(words)
    expected = [t for w in tokenize(text) if (t := Analyzer()._term(w))]
    original = module._CACHE_LIMIT
    module._CACHE_LIMIT = limit
    try:
        warm = Analyzer()
        assert warm.terms(text) == expected
        assert warm.terms(text + " " + text) == expected + expected
        for word in words:  # one word at a time: the cache fills, then starts over
            assert warm.terms(word) == [t for t in [Analyzer()._term(word.casefold())] if t]
            assert len(warm._cache) <= limit
    finally:
        module._CACHE_LIMIT = original
