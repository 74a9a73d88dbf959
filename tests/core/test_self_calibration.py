"""A collection calibrates its own "nothing here" (adr/0060): pseudo queries from its chunks
and the shipped off-topic questions choose bm25's lexical bar, applied only where it
separates; each search names the bar's source; without a record bm25 never abstains."""

from __future__ import annotations

import json
import math
import shutil
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import groundkit
from groundkit import Searcher
from groundkit.analysis.question_words import QUESTION_WORDS, content_terms
from groundkit.cli import ExitCode, main
from groundkit.embedding import HashEmbedder
from groundkit.errors import ConfigurationError
from groundkit.evaluation.self_calibration import (
    HYBRID_OFF_TOPIC_ANSWERED,
    MIN_ON_TOPIC,
    OFF_TOPIC_ANSWERED,
    hybrid_evidence,
    hybrid_pair,
    off_topic_bar,
    off_topic_questions,
    pseudo_on_topic,
    record_self_calibration,
    self_calibrate,
)
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval.abstention import EVIDENCE_TERMS, lexical_share
from groundkit.retrieval.floor import FloorRecord, write_floor
from groundkit.retrieval.lexical_bar import (
    LEXICAL_BAR_FILE,
    LexicalBar,
    read_lexical_bar,
    write_lexical_bar,
)

ON_TOPIC = ["how do I report a leak", "what are the drought watering restrictions"]
OFF_TOPIC = ["how do I bake a chocolate cake", "what is the plot of the Odyssey"]


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = tmp_path_factory.mktemp("self-calibration")
    groundkit.ingest(groundkit.sample_corpus(), index_dir=where, calibrate=False)
    return where


@pytest.fixture
def collection(sample: Path, tmp_path: Path) -> Path:
    copy = tmp_path / "index"
    shutil.copytree(sample, copy)
    return copy


def test_the_shipped_off_topic_set_is_general_and_multilingual() -> None:
    questions = off_topic_questions()
    assert len(questions) >= 200 and len(set(questions)) == len(questions)
    assert any("wie" in q.split() for q in questions)  # German
    assert any(not q.isascii() for q in questions)  # accents and other scripts
    assert not any(q.startswith("#") for q in questions)


def test_pseudo_queries_and_the_calibration_are_deterministic(sample: Path) -> None:
    with Searcher.open(sample) as retriever:
        first, second = pseudo_on_topic(retriever), pseudo_on_topic(retriever)
        assert first == second and len(first) > 100
        assert self_calibrate(retriever).to_dict() == self_calibrate(retriever).to_dict()


def test_without_a_record_bm25_never_abstains(sample: Path) -> None:
    with Searcher.open(sample) as retriever:
        response = retriever.search("what is the best way to clean a tap", mode="bm25")
    assert response.results  # off-topic, yet "clean" and "tap" match the sample's words
    assert "lexical_bar" not in response.metadata and "abstained" not in response.metadata


def test_a_separating_bar_makes_bm25_say_nothing_here(collection: Path) -> None:
    with Searcher.open(collection) as retriever:
        result = self_calibrate(retriever)
        assert result.separates
        write_lexical_bar(retriever.reader.location, result.lexical_bar())
    with Searcher.open(collection) as retriever:
        for query in ON_TOPIC:
            got = retriever.search(query, mode="bm25")
            assert got.results and got.metadata["abstained"] is False
            assert got.metadata["lexical_bar"] == {
                "min_lexical_share": result.bm25_share,
                "source": "self-calibrated",
            }
            assert got.metadata["lexical_share"] >= result.bm25_share
        for query in OFF_TOPIC:
            got = retriever.search(query, mode="bm25")
            assert not got.results and got.metadata["abstained"] is True
            assert got.metadata["lexical_share"] < result.bm25_share


def test_a_search_may_set_its_own_bar(collection: Path) -> None:
    """``lexical_bar`` replaces the collection's bar for one search (adr/0079): 0 answers
    what matched, a higher bar says nothing here, and a collection without a record
    applies it too; the record is untouched."""
    clean = "what is the best way to clean a tap"  # off-topic, shares two words
    with Searcher.open(collection) as retriever:  # no record: bm25 answers it...
        assert retriever.search(clean, mode="bm25").results
        plain = retriever.search(clean, mode="bm25", lexical_bar=0.9)  # ...unless asked
        assert plain.results == () and plain.metadata["abstained"] is True
        assert 0 < plain.metadata["lexical_share"] < 0.9
        assert plain.metadata["lexical_bar"] == {"min_lexical_share": 0.9, "source": "search"}
        none = retriever.search(OFF_TOPIC[0], mode="bm25", lexical_bar=0.0)
        assert none.results == () and not none.metadata["abstained"]  # nothing matched
        cut = retriever.search(clean, mode="bm25", lexical_bar=0.0, score_threshold=1000.0)
        assert cut.results == () and not cut.metadata["abstained"]  # the threshold cut them
        assert cut.metadata["lexical_share"] > 0
        result = self_calibrate(retriever)
        write_lexical_bar(retriever.reader.location, result.lexical_bar())
    with Searcher.open(collection) as retriever:
        held = retriever.search(clean, mode="bm25")
        assert held.metadata["abstained"] and not held.results
        anyway = retriever.search(clean, mode="bm25", lexical_bar=0.0)
        assert anyway.results and anyway.metadata["abstained"] is False
        assert anyway.metadata["lexical_bar"] == {"min_lexical_share": 0.0, "source": "search"}
        assert anyway.metadata["lexical_share"] == held.metadata["lexical_share"]
        strict = retriever.search(ON_TOPIC[0], mode="bm25", lexical_bar=1.0)
        assert strict.metadata["abstained"] and not strict.results
        again = retriever.search(clean, mode="bm25")
        assert again.metadata["lexical_bar"]["source"] == "self-calibrated"
        assert read_lexical_bar(retriever.reader.location) == result.lexical_bar()


def test_a_word_being_typed_or_mistyped_is_measured_by_its_expansion(collection: Path) -> None:
    """A word the collection lacks that a typo correction or a completion stands for leaves
    the ideal (its expansion is what the query asks there), so typing an on-topic question
    does not say "nothing here"; a shorter prefix's completions (a guess at another word)
    leave it in (adr/0069)."""
    with Searcher.open(collection) as retriever:
        result = self_calibrate(retriever)
        write_lexical_bar(retriever.reader.location, result.lexical_bar())
    bar = result.bm25_share
    with Searcher.open(collection) as retriever:
        for typed in ("chlorne residual", "flushng schedule", "backfl"):
            plain = retriever.search(typed, mode="bm25")
            expanded = retriever.search(typed, mode="bm25", prefix=True, fuzzy=True)
            assert expanded.metadata["expansions"], typed
            assert plain.metadata["lexical_share"] < bar <= expanded.metadata["lexical_share"]
            assert plain.metadata["abstained"] and not expanded.metadata["abstained"]
        norway = retriever.search("capital of Norway", mode="bm25", prefix=True, fuzzy=True)
        completions = norway.metadata["expansions"]["prefix"]["norway"]
        assert completions and not any(done.startswith("norwai") for done in completions)
        assert norway.metadata["abstained"], "a shorter prefix's completions are no evidence"


def test_a_bar_that_does_not_separate_is_recorded_but_not_applied(collection: Path) -> None:
    with Searcher.open(collection) as retriever:
        bar = LexicalBar(0.99, False, retriever.generation, {"source": "self"})
        write_lexical_bar(retriever.reader.location, bar)
    with Searcher.open(collection) as retriever:
        got = retriever.search(ON_TOPIC[0], mode="bm25")
    assert got.results and got.metadata["abstained"] is False
    assert got.metadata["lexical_bar"] == {"min_lexical_share": None, "source": "self-calibrated"}


def test_an_unreadable_record_is_refused_with_the_fix(collection: Path) -> None:
    with Searcher.open(collection) as retriever:
        location = retriever.reader.location
    (Path(location).parent / LEXICAL_BAR_FILE).write_text("{not json", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="calibrate --self"):
        read_lexical_bar(location)


def test_the_evidence_leaves_out_the_question_words_only() -> None:
    analyzer = groundkit.Analyzer()
    framing = frozenset(t for w in QUESTION_WORDS["english"] for t in analyzer.terms(w))
    assert content_terms(analyzer.terms("how do I report a leak"), framing) == ["report", "leak"]
    assert content_terms(analyzer.terms("how do I"), framing) == analyzer.terms("how do I")


def test_the_evidence_counts_as_many_words_as_the_shipped_questions_name(sample: Path) -> None:
    """EVIDENCE_TERMS is the median number of content terms of the shipped off-topic
    questions (adr/0071), not a number chosen on a test set."""
    with Searcher.open(sample) as retriever:
        framing = retriever.question_terms()
        counts = sorted(
            len(set(content_terms(terms, framing)))
            for terms in map(retriever.analyzer.terms, off_topic_questions())
            if terms
        )
    middle = (counts[(len(counts) - 1) // 2] + counts[len(counts) // 2]) / 2
    assert math.ceil(middle) == EVIDENCE_TERMS


@given(
    st.lists(st.floats(0.01, 20.0), min_size=1, max_size=12),
    st.floats(0.0, 60.0),
    st.integers(1, 6),
)
def test_the_share_sums_the_highest_idf_only(idf: list[float], best: float, most: int) -> None:
    terms = [f"t{n}" for n in range(len(idf))]
    weight = dict(zip(terms, idf, strict=True)).__getitem__
    ideal = 0.0  # the highest first where some are left out, else in the query's order
    for value in sorted(idf, reverse=True)[:most] if len(idf) > most else idf:
        ideal += value
    got = lexical_share(best, terms, weight, most)
    assert got == min(1.0, best / ideal) and 0.0 <= got <= 1.0
    assert got >= lexical_share(best, terms, weight)  # never under the share over them all
    if len(idf) <= most:
        assert got == lexical_share(best, terms, weight)
    assert lexical_share(None, terms, weight, most) == 0.0


def test_a_long_on_topic_question_is_not_held_to_all_its_words(collection: Path) -> None:
    """A held-out on-topic question with five content words (adr/0066's overlap) is under
    the sample's bar when its share counts every word, and answered on its four most
    specific (adr/0071)."""
    question = "how deep can a trench be dug without shoring"
    with Searcher.open(collection) as retriever:
        result = self_calibrate(retriever, dense=False)
        assert result.separates
        write_lexical_bar(retriever.reader.location, result.lexical_bar())
    with Searcher.open(collection) as retriever:
        content = content_terms(retriever.analyzer.terms(question), retriever.question_terms())
        assert len(content) > EVIDENCE_TERMS
        scorer = retriever.transport.scorers[0]  # type: ignore[attr-defined]
        idf = sorted((weight for _, weight in scorer.term_idf(content)), reverse=True)
        got = retriever.search(question, mode="bm25")
        share = got.metadata["lexical_share"]
        assert got.results and result.bm25_share <= share < 1.0
        every_word = share * sum(idf[:EVIDENCE_TERMS]) / sum(idf)  # the same best score
        assert every_word < result.bm25_share


def test_calibrate_self_writes_and_search_names_the_source(
    collection: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["calibrate", "--self", "--index-dir", str(collection), "--json"]
    assert main(args) == ExitCode.OK
    report = json.loads(capsys.readouterr().out)
    assert report["recorded"] == [] and report["bm25"]["measured"]["source"] == "self"
    assert main([*args, "--write"]) == ExitCode.OK
    written = json.loads(capsys.readouterr().out)
    assert written["bm25"] == report["bm25"] and len(written["recorded"]) == 1
    search = ["search", OFF_TOPIC[0], "--index-dir", str(collection), "--json"]
    assert main(search) == ExitCode.OK
    payload = json.loads(capsys.readouterr().out)
    assert payload["results"] == [] and payload["metadata"]["lexical_bar"]["source"] == (
        "self-calibrated"
    )
    refused = main(["calibrate", "--self", "--set", "0.3", "--index-dir", str(collection)])
    assert refused == ExitCode.USAGE
    assert "leave out" in capsys.readouterr().err


def test_an_ingest_calibrates_where_the_collection_changed(tmp_path: Path) -> None:
    """By default an ingest ends with the collection's self-calibration, recorded: a new
    collection says "nothing here" at once; an ingest that changed nothing measures nothing
    again; ``calibrate=False`` keeps the last record (adr/0072)."""
    corpus = tmp_path / "corpus"
    shutil.copytree(groundkit.sample_corpus(), corpus)
    first = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    with Searcher.open(tmp_path / "index") as retriever:
        bar = read_lexical_bar(retriever.reader.location)
        assert bar is not None and first.calibration is not None
        assert (
            bar.to_dict()
            == first.calibration["bm25"]
            == self_calibrate(retriever).to_dict()["bm25"]
        )
        assert bar.generation == retriever.generation and bar.separates
        for query in OFF_TOPIC:
            assert retriever.search(query).metadata["abstained"] is True
        for query in ON_TOPIC:
            assert retriever.search(query).results
    assert groundkit.ingest(corpus, index_dir=tmp_path / "index").calibration is None
    (corpus / "extra.md").write_text("# Hydrant painting\n\nHydrants are painted yellow.\n")
    kept = groundkit.ingest(corpus, index_dir=tmp_path / "index", calibrate=False)
    assert kept.calibration is None and kept.indexed == ["extra.md"]
    with Searcher.open(tmp_path / "index") as retriever:
        assert read_lexical_bar(retriever.reader.location) == bar  # the last record, kept
    again = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    with Searcher.open(tmp_path / "index") as retriever:
        now = read_lexical_bar(retriever.reader.location)
        assert now is not None and again.calibration == {"bm25": now.to_dict()}
        assert now.generation == retriever.generation != bar.generation


def test_an_open_searcher_applies_what_was_recorded_after_it_opened(tmp_path: Path) -> None:
    """A searcher kept open (a service) reads the bar and the floor again once an ingest or
    ``calibrate`` records them anew, without a new generation (adr/0072)."""
    index = tmp_path / "index"
    groundkit.ingest(groundkit.sample_corpus(), index_dir=index, calibrate=False)
    question = "what is the best way to clean a tap"
    with Searcher.open(index) as kept_open:
        assert kept_open.search(question).results  # no record: bm25 answers
        unchanged = groundkit.ingest(groundkit.sample_corpus(), index_dir=index)
        assert unchanged.indexed == [] and unchanged.calibration is not None
        said = kept_open.search(question).metadata
        assert said["abstained"] is True and said["lexical_bar"]["source"] == "self-calibrated"
    hashed = tmp_path / "hashed"
    groundkit.ingest(groundkit.sample_corpus(), index_dir=hashed, embedder=Meaningful())
    with Searcher.open(hashed, embedder=Meaningful()) as kept_open:
        before = kept_open.search("leak", mode="hybrid").metadata
        assert before["floor_source"] == "self-calibrated"
        write_floor(kept_open.reader.location, FloorRecord(0.5, Meaningful().identity, None, 0.7))
        after = kept_open.search("leak", mode="hybrid").metadata
        assert (after["min_similarity"], after["floor_source"]) == (0.5, "collection")
        fusion = after["fusion"]
        assert (fusion["min_lexical_share"], fusion["lexical_share_source"]) == (0.7, "collection")


def test_a_collection_of_a_few_passages_applies_no_bar(tmp_path: Path) -> None:
    """Too few pseudo on-topic queries to measure a rate (under ``MIN_ON_TOPIC``): the ingest
    records the bar as not separating, and bm25 answers every match."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "pumps.md").write_text("# Pumps\n\nThe pump house keeps two spare impellers.\n")
    (corpus / "leak.md").write_text("leak\n")
    report = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    assert report.calibration is not None
    assert report.calibration["bm25"]["measured"]["queries"]["on_topic"] < MIN_ON_TOPIC
    assert report.calibration["bm25"]["separates"] is False
    with Searcher.open(tmp_path / "index") as retriever:
        for query in ("leak", "spare impellers", "where are the spare impellers kept"):
            found = retriever.search(query)
            assert found.results and found.metadata["abstained"] is False, query
            assert found.metadata["lexical_bar"]["min_lexical_share"] is None


def test_an_ingest_keeps_a_floor_the_user_set(tmp_path: Path) -> None:
    """A floor set from real queries (``calibrate --floor``) outranks the pseudo queries: the
    ingest calibrates bm25's bar alone and leaves the floor as recorded."""
    corpus = tmp_path / "corpus"
    shutil.copytree(groundkit.sample_corpus(), corpus)
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index, embedder=Meaningful())
    with Searcher.open(index, embedder=Meaningful()) as retriever:
        assert retriever.search("leak", mode="dense").metadata["floor_source"] == "self-calibrated"
    with Searcher.open(index, embedder=Meaningful()) as retriever:  # as `calibrate --floor`
        write_floor(retriever.reader.location, FloorRecord(0.5, Meaningful().identity))
    (corpus / "extra.md").write_text("# Hydrant painting\n\nHydrants are painted yellow.\n")
    report = groundkit.ingest(corpus, index_dir=index, embedder=Meaningful())
    assert report.calibration is not None and "hybrid" not in report.calibration
    with Searcher.open(index, embedder=Meaningful()) as retriever:
        meta = retriever.search("leak", mode="dense").metadata
        assert (meta["min_similarity"], meta["floor_source"]) == (0.5, "collection")
        bar = read_lexical_bar(retriever.reader.location)
        assert bar is not None and bar.generation == retriever.generation


def test_ingest_no_calibrate_records_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``--no-calibrate``: no record, bm25 answers as before; a later ingest that changed
    nothing still calibrates a collection that has no record, and search then says why it
    has nothing."""
    index = tmp_path / "index"
    args = ["ingest", str(groundkit.sample_corpus()), "--index-dir", str(index)]
    assert main([*args, "--json", "--no-calibrate"]) == ExitCode.OK
    assert json.loads(capsys.readouterr().out)["calibration"] is None
    assert not list(index.rglob(LEXICAL_BAR_FILE))
    search = ["search", "what is the best way to clean a tap", "--index-dir", str(index)]
    assert main(search) == 0
    assert capsys.readouterr().out.startswith(" 1. ")  # never calibrated: bm25 answers
    assert main(args) == ExitCode.OK
    assert 'calibrated "nothing here": bm25 lexical share' in capsys.readouterr().out
    assert main(search) == 0
    said = capsys.readouterr().out
    assert said.startswith("nothing here for 'what is the best way to clean a tap'")
    assert "under the self-calibrated bar" in said
    assert "--lexical-bar 0 shows what matched anyway" in said  # the way to see them
    assert main([*search, "--lexical-bar", "0"]) == 0
    assert capsys.readouterr().out.startswith(" 1. ")
    assert main(["search", "how do I bake a cake", "--index-dir", str(index)]) == 0
    assert "anyway" not in capsys.readouterr().out  # nothing matched: nothing to show
    # no word to search for, or a filter that admits nothing: not the query's evidence
    assert main(["search", "the and of to", "--index-dir", str(index)]) == 0
    assert "it has no word to search for" in capsys.readouterr().out
    nowhere = ["search", "leak", "--source-prefix", "nowhere/", "--index-dir", str(index)]
    assert main(nowhere) == 0
    assert capsys.readouterr().out.startswith("no results for 'leak': the filter admits no")


def test_ingest_calibrate_records_the_collections_own_bar(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    index = tmp_path / "index"
    args = ["ingest", str(groundkit.sample_corpus()), "--index-dir", str(index), "--json"]
    assert main([*args, "--calibrate"]) == ExitCode.OK
    report = json.loads(capsys.readouterr().out)
    with Searcher.open(index) as retriever:
        bar = read_lexical_bar(retriever.reader.location)
        assert bar is not None and bar.to_dict() == report["calibration"]["bm25"]
        assert bar.generation == retriever.generation
        assert self_calibrate(retriever).to_dict()["bm25"] == report["calibration"]["bm25"]


@given(
    st.lists(st.floats(0, 1, allow_nan=False).map(lambda v: round(v, 2)), max_size=40),
    st.integers(0, 10),
)
def test_the_off_topic_bar_is_the_lowest_that_lets_at_most_the_allowed_through(
    values: list[float], allowed: int
) -> None:
    bar = off_topic_bar(values, allowed)
    assert sum(v >= bar for v in values) <= allowed
    stopped = [v for v in values if v < bar]  # each one stopped had to be
    assert not stopped or sum(v >= max(stopped) for v in values) > allowed


def test_the_sample_bar_answers_the_allowed_share_of_the_shipped_questions(sample: Path) -> None:
    with Searcher.open(sample) as retriever:
        result = self_calibrate(retriever)
    allowed = math.floor(OFF_TOPIC_ANSWERED * result.off_topic)
    answered = sum(share >= result.bm25_share for share in result.bm25_off)
    assert answered <= allowed and result.separates
    stopped = max(share for share in result.bm25_off if share < result.bm25_share)
    assert sum(share >= stopped for share in result.bm25_off) > allowed  # none lower would do
    assert result.bm25_rates() == (
        sum(s < result.bm25_share for s in result.bm25_on) / result.on_topic,
        answered / result.off_topic,
    )


class Meaningful(HashEmbedder):  # a stand-in for a semantic model (MiniLM): hybrid is calibrated
    @property
    def identity(self) -> EmbeddingIdentity:
        return replace(super().identity, model="meaningful", semantic=True)


def test_hybrid_floor_and_share_let_through_the_allowed_share_together(tmp_path: Path) -> None:
    groundkit.ingest(groundkit.sample_corpus(), index_dir=tmp_path, embedder=Meaningful())
    with Searcher.open(tmp_path, embedder=Meaningful()) as retriever:
        result = self_calibrate(retriever)
        assert result.floor is not None
        record_self_calibration(retriever, result)
    allowed = math.floor(HYBRID_OFF_TOPIC_ANSWERED * result.off_topic)  # 7 of 282 (adr/0084)
    with Searcher.open(tmp_path, embedder=Meaningful()) as retriever:  # the lowest that do
        evidence = hybrid_evidence(retriever, off_topic_questions())
    chosen = (result.floor.floor, result.floor.lexical_share)
    assert chosen == hybrid_pair(evidence, allowed) != hybrid_pair(evidence, 2 * allowed)
    measured = result.floor.measured or {}
    assert measured["false_answer"] <= allowed // 2 / result.off_topic
    assert measured["hybrid_false_answer"] <= allowed / result.off_topic
    with Searcher.open(tmp_path, embedder=Meaningful()) as retriever:
        found = [retriever.search(q, mode="hybrid").metadata for q in off_topic_questions()]
    assert all(meta["floor_source"] == "self-calibrated" for meta in found)
    answered = sum(not meta["abstained"] for meta in found)
    assert answered == round(measured["hybrid_false_answer"] * result.off_topic)
