"""A question that names a thing the collection lacks has nothing here (adr/0080): bm25, where
a bar over 0 applies, says so whatever its share, and names the word."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import groundkit
from groundkit import Searcher
from groundkit.cli import main
from groundkit.retrieval.abstention import absent_name, names

PAYPAL = "how do I pay my bill with PayPal"  # its share passes the sample's bar


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample, ingested as a user would: it calibrates itself, and its bar separates."""
    where = tmp_path_factory.mktemp("absent-name")
    groundkit.ingest(groundkit.sample_corpus(), index_dir=where)
    return where


@pytest.mark.parametrize(
    ("query", "found"),
    [
        ("how do I define a route in FastAPI", ["FastAPI"]),  # a capital inside
        ("SQLAlchemy relationships", ["SQLAlchemy"]),  # ... also as the first word
        ("what is the population of Tokyo", ["Tokyo"]),  # capitalised past the first word
        ("How do I report a leak", []),  # the first word begins a sentence
        ("How To Report A Leak", []),  # every word capitalised: no sign of a name
        ("HOW DO I REPORT A LEAK", []),  # capitals throughout: none either
        ("ｔｅｓｔ in Ｂｅｒｌｉｎ", ["Berlin"]),  # NFKC, as the analyzer reads it
        ("pH units of the PDF", ["pH", "PDF"]),
        ("is 5mmol/L high in B12", ["B12"]),  # one letter is no name
        ("how do I install Node.js and O'Reilly's", ["Node.js", "O'Reilly's"]),  # words whole
        ("my tap is dry. Whom do I call? Springfield says", []),  # each starts a sentence
        ("¿Dónde está Springfield", ["Springfield"]),
        ("日本 in Tokyo", ["Tokyo"]),  # a word of letters that are not capitals begins it
    ],
)
def test_a_name_is_told_by_its_capitals(query: str, found: list[str]) -> None:
    assert names(query) == found


def test_a_language_that_capitalises_its_nouns_names_by_inner_capitals_only() -> None:
    query = "wie melde ich mein Auto bei der Zulassungsstelle um"
    assert names(query) == ["Auto", "Zulassungsstelle"]
    assert names(query, ["german"]) == []
    assert names("wie nutze ich GitHub", ["german", "english"]) == ["GitHub"]


def test_a_sentence_opening_capital_and_a_question_word_name_nothing() -> None:
    """``Whom`` after a full stop is no name; had it been one, its term is a question word."""
    assert names("tap dry. Whom do I call") == []
    assert names("tap dry; Whom do I call") == ["Whom"]

    def held(terms: list[str]) -> dict[str, int]:
        return dict.fromkeys(terms, 0)  # the collection lacks them all

    def terms_of(word: str) -> list[str]:
        return [word.lower()]

    framing = frozenset({"whom"})
    query = "tap dry; Whom do I call"
    assert absent_name(query, (), terms_of, held, frozenset(), framing) is None
    assert absent_name(query, (), terms_of, held, frozenset()) == "Whom"


def test_a_name_is_absent_only_where_every_term_is_lacking_and_none_stood_for() -> None:
    held = {"paypal": 0, "bill": 9, "pay": 0, "pal": 4}.get

    def counts(terms: list[str]) -> dict[str, int]:
        return {term: held(term) or 0 for term in terms}

    def terms_of(word: str) -> list[str]:
        return {"PayPal": ["paypal"], "Pay-Pal": ["pay", "pal"]}.get(word, [word.lower()])

    assert absent_name("pay a bill with PayPal", (), terms_of, counts, frozenset()) == "PayPal"
    # a word an expansion stood for (a typo corrected) names what it was taken for
    assert absent_name("pay with PayPal", (), terms_of, counts, frozenset({"paypal"})) is None
    assert absent_name("pay a Bill", (), terms_of, counts, frozenset()) is None  # held
    assert absent_name("with Pay Pal", (), terms_of, counts, frozenset()) == "Pay"


def test_bm25_says_nothing_here_for_a_name_the_collection_lacks(sample: Path) -> None:
    with Searcher.open(sample) as searcher:
        named = searcher.search(PAYPAL, mode="bm25")
        bar = named.metadata["lexical_bar"]["min_lexical_share"]
        assert named.metadata["lexical_share"] >= bar > 0  # the share alone would answer
        assert named.results == () and named.metadata["abstained"] is True
        assert named.metadata["absent_name"] == "PayPal"
        plain = searcher.search(PAYPAL.replace("PayPal", "paypal"), mode="bm25")
        assert plain.results and "absent_name" not in plain.metadata  # no capital, no name
        dotted = searcher.search("how do I report a leak. Springfield", mode="bm25")
        assert "absent_name" not in dotted.metadata  # a sentence's first word
        for town in ("Riverbend", "Springfield"):  # the sample's town, and another
            found = searcher.search(f"how do I report a leak in {town}", mode="bm25")
            assert found.metadata["lexical_share"] >= bar
            assert bool(found.results) == (town == "Riverbend")
            assert found.metadata.get("absent_name") == (None if found.results else town)
        typed = searcher.search(PAYPAL, mode="bm25", prefix=True, fuzzy=True)
        assert typed.metadata["absent_name"] == "PayPal"  # completing it is a guess (adr/0077)


def test_a_bar_of_0_or_none_applied_answers_a_name_it_lacks(sample: Path, tmp_path: Path) -> None:
    with Searcher.open(sample) as searcher:
        anyway = searcher.search(PAYPAL, mode="bm25", lexical_bar=0.0)
        assert anyway.results and anyway.metadata["abstained"] is False
        assert "absent_name" not in anyway.metadata
    groundkit.ingest(groundkit.sample_corpus(), index_dir=tmp_path, calibrate=False)
    with Searcher.open(tmp_path) as bare:  # no bar recorded: bm25 never abstains
        assert bare.search(PAYPAL, mode="bm25").results


def test_a_sharded_collection_tells_the_same_name(sample: Path, tmp_path: Path) -> None:
    corpus = str(groundkit.sample_corpus())
    index = ["--index-dir", str(tmp_path), "--collection", "many"]
    assert main(["shard", "build", corpus, "--shards", "3", *index, "--json"]) == 0
    with Searcher.open(tmp_path, "many") as many, Searcher.open(sample) as one:
        for query in (PAYPAL, "how do I report a leak in Springfield", "report a leak"):
            got, want = many.search(query, mode="bm25"), one.search(query, mode="bm25")
            assert got.metadata.get("absent_name") == want.metadata.get("absent_name")
            assert [r.chunk_id for r in got.results] == [r.chunk_id for r in want.results]


def test_the_cli_names_the_word_and_the_way_out(
    sample: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["search", PAYPAL, "--index-dir", str(sample)]) == 0
    said = capsys.readouterr().out
    assert "it names 'PayPal', which no passage holds" in said
    assert "--lexical-bar 0 shows what matched anyway" in said
    cut = ["search", PAYPAL, "--index-dir", str(sample), "--score-threshold", "1000"]
    assert main(cut) == 0
    said = capsys.readouterr().out
    assert "it names 'PayPal'" in said and "--lexical-bar 0" not in said  # it would cut all
    assert main(["search", PAYPAL, "--index-dir", str(sample), "--json"]) == 0
    answer = json.loads(capsys.readouterr().out)
    assert answer["results"] == [] and answer["metadata"]["absent_name"] == "PayPal"
