"""The Levenshtein automaton over a sorted term list against the lexicon and a brute-force scan:
the same terms, distances and order, on random vocabularies and on real ones."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_expansion import lexicon_of, load_words, reference_distance

import groundkit
from groundkit.analysis.analyzer import Analyzer
from groundkit.evaluation.beir import BeirDataset
from groundkit.index.automaton import terms_within
from groundkit.index.lexicon import Lexicon, edit_distance
from groundkit.ingestion import Indexer
from groundkit.store import MemoryStore

WORDS = st.text("abcdé", max_size=7)


@settings(max_examples=200, deadline=None)
@given(st.lists(WORDS, max_size=40), WORDS, st.integers(0, 3), st.integers(0, 3))
def test_terms_within_is_every_term_within_the_limit_in_order(
    vocabulary: list[str], term: str, max_edits: int, first_changed: int
) -> None:
    ordered = sorted(set(vocabulary))
    allowed = {True: max_edits, False: min(max_edits, first_changed)}
    want = {
        known: reference_distance(term, known)
        for known in ordered
        if 0 < reference_distance(term, known) <= allowed[known[:1] == term[:1]]
    }
    got = terms_within(term, ordered, max_edits, first_changed=first_changed)
    assert list(got.items()) == list(want.items())


@settings(max_examples=100, deadline=None)
@given(st.lists(WORDS, max_size=40), WORDS, st.integers(0, 40), st.integers(0, 40))
def test_terms_within_reads_only_its_slice(
    vocabulary: list[str], term: str, lo: int, hi: int
) -> None:
    ordered = sorted(set(vocabulary))
    want = {
        known: reference_distance(term, known)
        for known in ordered[lo:hi]
        if 0 < reference_distance(term, known) <= 2
    }
    assert terms_within(term, ordered, 2, lo=lo, hi=min(hi, len(ordered))) == want


def test_one_edit_never_reports_a_term_two_edits_away() -> None:
    """``abcd`` and ``acde`` share the deletion ``acd`` but are two edits apart."""
    assert lexicon_of(["acde", "xbcd"]).near("abcd", 1) == {"xbcd": 1}


def typos(terms: list[str], count: int, seed: int) -> list[str]:
    """``count`` words of the vocabulary, each with one or two random edits (any position)."""
    rng = random.Random(seed)
    letters = sorted(set("".join(terms)))
    words = []
    for known in rng.sample(terms, count):
        word = known
        for _ in range(rng.choice((1, 2))):
            at = rng.randrange(len(word) + 1)
            kind = rng.randrange(4)
            if kind == 0 and word:
                word = word[:at] + word[at + 1 :]
            elif kind == 1 and at + 1 < len(word):
                word = word[:at] + word[at + 1] + word[at] + word[at + 2 :]
            elif kind == 2:
                word = word[:at] + rng.choice(letters) + word[at + 1 :]
            else:
                word = word[:at] + rng.choice(letters) + word[at:]
        words.append(word)
    return words


def assert_structures_agree(lexicon: Lexicon, terms: list[str], words: list[str]) -> None:
    """The lexicon (deletes for one edit, the automaton on the first letter's slice for two),
    the automaton alone on the whole list, and a scan of every term: identical answers, and
    some words with terms at each distance."""
    distances: set[int] = set()
    for word in words:
        for max_edits in (1, 2):
            near = list(lexicon.near(word, max_edits).items())
            walked = terms_within(word, terms, max_edits, first_changed=1)
            assert near == list(walked.items()), (word, max_edits)
            scanned = [
                (known, distance)
                for known in terms
                if 0 < (distance := edit_distance(word, known, max_edits)) <= max_edits
                and (distance == 1 or known[:1] == word[:1])
            ]
            assert near == scanned, (word, max_edits)
            distances.update(distance for _, distance in near)
    assert distances == {1, 2}


def test_structures_agree_on_the_sample_collection() -> None:
    store = MemoryStore("sample")
    Indexer(store).ingest(groundkit.sample_corpus())
    reader = store.reader()
    terms = reader.indexed_terms("")
    assert len(terms) > 500
    assert_structures_agree(Lexicon(reader, str), terms, typos(terms, 150, seed=31))


@pytest.mark.shared_data
def test_structures_agree_on_the_cranfield_vocabulary(shared_data: Path) -> None:
    dataset = BeirDataset.load(shared_data / "beir" / "cranfield")
    analyzer = Analyzer()
    vocabulary = {
        term for doc in dataset.corpus() for term in analyzer.terms(f"{doc.title} {doc.text}")
    }
    store = MemoryStore("cranfield")
    terms = sorted(vocabulary)
    with store.batch():
        load_words(store, terms)
    reader = store.reader()
    assert reader.indexed_terms("") == terms
    assert_structures_agree(Lexicon(reader, str), terms, typos(terms, 150, seed=46))
