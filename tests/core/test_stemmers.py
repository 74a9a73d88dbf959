"""Stemmers against the official Snowball test vocabularies (and a few cases without them)."""

from __future__ import annotations

import gzip
from collections.abc import Callable
from pathlib import Path

import pytest

from groundkit.analysis import porter, snowball


def _read_lines(path: Path) -> list[str]:
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        return handle.read().splitlines()


def _check_vocabulary(shared_data: Path, folder: str, stem: Callable[[str], str]) -> None:
    """``stem`` maps line N of ``stemmers/<folder>/voc.txt.gz`` to line N of ``output.txt.gz``."""
    base = shared_data / "stemmers" / folder
    words = _read_lines(base / "voc.txt.gz")
    expected = _read_lines(base / "output.txt.gz")
    assert len(words) == len(expected), f"{folder}: voc and output differ in length"
    mismatches = [
        (word, want, got)
        for word, want in zip(words, expected, strict=True)
        if (got := stem(word)) != want
    ]
    assert not mismatches, (
        f"{folder}: {len(mismatches)} of {len(words)} words stem differently; "
        f"first 20 (word, expected, got): {mismatches[:20]}"
    )


def _porter_published(word: str) -> str:
    return porter.stem(word, published=True)


@pytest.mark.shared_data
def test_porter_reproduces_the_official_vocabulary(shared_data: Path) -> None:
    # The official vocabulary records the algorithm as published (Snowball's ``porter``).
    _check_vocabulary(shared_data, "porter", _porter_published)


@pytest.mark.shared_data
def test_porter_lucene_variant_departs_only_where_the_reference_code_does(
    shared_data: Path,
) -> None:
    """The default (Lucene) variant differs from the official vocabulary only on words of 1-2
    characters and where step 2 meets -bli or -logi (67 words)."""
    base = shared_data / "stemmers" / "porter"
    words = _read_lines(base / "voc.txt.gz")
    expected = _read_lines(base / "output.txt.gz")
    differing = [
        (word, want, got)
        for word, want in zip(words, expected, strict=True)
        if (got := porter.stem(word)) != want
    ]
    unexplained = [
        entry
        for entry in differing
        if not (len(entry[0]) <= 2 and entry[2] == entry[0])
        and not entry[1].endswith(("bli", "logi"))
    ]
    assert not unexplained, f"{len(unexplained)} unexplained: {unexplained[:20]}"
    assert len(differing) == 67, differing[:20]


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("caresses", "caress"),
        ("ponies", "poni"),
        ("ties", "ti"),
        ("cats", "cat"),
        ("feed", "feed"),
        ("agreed", "agre"),
        ("plastered", "plaster"),
        ("motoring", "motor"),
        ("sing", "sing"),
        ("hopping", "hop"),
        ("filing", "file"),
        ("happy", "happi"),
        ("relational", "relat"),
        ("generously", "gener"),
        ("generalization", "gener"),
        ("electrical", "electr"),
        ("adoption", "adopt"),
        ("controlling", "control"),
        ("probate", "probat"),
        ("rate", "rate"),
    ],
)
def test_porter_examples(word: str, expected: str) -> None:
    assert porter.stem(word) == expected
    assert porter.stem(word, published=True) == expected


@pytest.mark.parametrize(
    ("word", "lucene", "published"),
    [
        ("is", "is", "i"),
        ("s", "s", ""),
        ("ay", "ay", "ai"),
        ("possibly", "possibl", "possibli"),
        ("sensibly", "sensibl", "sensibli"),
        ("incredibly", "incred", "incredibli"),
        ("psychology", "psycholog", "psychologi"),
        ("conformabli", "conform", "conform"),  # -abli -> -able in both, then -able goes
        ("buzzing", "buzz", "buzz"),
        ("bowwed", "bow", "boww"),  # Snowball undoes only bb dd ff gg mm nn pp rr tt
        ("dyyed", "dy", "dyi"),
    ],
)
def test_porter_variants_differ_where_the_reference_code_departs(
    word: str, lucene: str, published: str
) -> None:
    assert porter.stem(word) == lucene
    assert porter.stem(word, published=True) == published


@pytest.mark.parametrize("word", ["", "a", "is", "as", "ys", "19"])
def test_porter_leaves_short_words_unchanged(word: str) -> None:
    assert porter.stem(word) == word


@pytest.mark.parametrize("word", ["covid19", "a_b", "café", "naïve", "हिन्दी", "___", "yyy", "s"])
def test_porter_accepts_any_characters(word: str) -> None:
    assert isinstance(porter.stem(word), str)
    assert isinstance(porter.stem(word, published=True), str)


@pytest.mark.shared_data
def test_snowball_english_reproduces_the_official_vocabulary(shared_data: Path) -> None:
    _check_vocabulary(shared_data, "english", snowball.stem)


@pytest.mark.parametrize(
    ("word", "expected"),
    [
        ("generously", "generous"),
        ("generalization", "general"),
        ("communication", "communic"),
        ("consign", "consign"),
        ("consigned", "consign"),
        ("skies", "sky"),
        ("skis", "ski"),
        ("dying", "die"),
        ("lying", "lie"),
        ("news", "news"),
        ("inning", "inning"),
        ("proceed", "proceed"),
        ("agreed", "agre"),
        ("hoping", "hope"),
        ("hopping", "hop"),
        ("cried", "cri"),
        ("ties", "tie"),
        ("gas", "gas"),
        ("gaps", "gap"),
        ("yelling", "yell"),
        ("enjoying", "enjoy"),
        ("cry", "cri"),
        ("say", "say"),
        ("pasted", "paste"),
        ("international", "internat"),
        ("fluently", "fluentli"),
        ("knightly", "knight"),
        ("there's", "there"),
        ("'as'", "as"),
        ("'''", "'"),
    ],
)
def test_snowball_english_examples(word: str, expected: str) -> None:
    assert snowball.stem(word) == expected


@pytest.mark.parametrize("word", ["", "a", "is", "ys", "'s", "19"])
def test_snowball_english_leaves_short_words_unchanged(word: str) -> None:
    assert snowball.stem(word) == word


@pytest.mark.parametrize(
    "word", ["covid19", "a_b", "café", "naïve", "हिन्दी", "___", "yyy", "''s", "'y'", "ying"]
)
def test_snowball_english_accepts_any_characters(word: str) -> None:
    assert isinstance(snowball.stem(word), str)
