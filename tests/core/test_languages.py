"""Every shipped language's stemmer against its official Snowball vocabulary, line by line.

The vocabularies (tests/data/snowball, packed by make_data.py) come from
snowballstem/snowball-data; Arabic and Tamil have none in our mirror, so they are held to
libstemmer (Snowball's C output, via PyStemmer) on the words of Debian's Arabic and Tamil
translations instead (``libstemmer-*.txt.gz``, make_libstemmer_check.py; adr/0045).
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from groundkit.analysis import languages
from groundkit.analysis.analyzer import STEMMERS, Analyzer
from groundkit.analysis.languages import LANGUAGES, language_stemmer, resolve_language
from groundkit.errors import ConfigurationError, IndexIdentityError

VOCABULARIES = Path(__file__).resolve().parent.parent / "data" / "snowball"
CROSS_CHECKED = {"arabic", "tamil"}
"""No vocabulary in snowball-data's mirror (Git LFS): checked against libstemmer instead."""
DEPARTURES = {"finnish": 103}
"""Words where snowballstemmer 3.1.1 (and PyStemmer 3.1.0, generated from the same release)
disagree with snowball-data's newer Finnish vocabulary (-hVn illatives such as ``abachan``);
pinned so that any other change fails."""


def _vocabulary(algorithm: str) -> list[tuple[str, str]]:
    name = f"libstemmer-{algorithm}" if algorithm in CROSS_CHECKED else algorithm
    with gzip.open(VOCABULARIES / f"{name}.txt.gz", "rt", encoding="utf-8") as handle:
        lines = handle.read().splitlines()
    pairs = []
    for line in lines:
        word, _, packed = line.partition("\t")
        if not packed:
            pairs.append((word, word))
        elif packed.startswith("="):
            pairs.append((word, packed[1:]))
        else:
            pairs.append((word, word[: len(word) - int(packed)]))
    return pairs


def test_every_language_has_a_vocabulary_or_a_libstemmer_check() -> None:
    shipped = set(LANGUAGES.values())
    packed = {path.name.removesuffix(".txt.gz") for path in VOCABULARIES.glob("*.txt.gz")}
    assert packed == (shipped - CROSS_CHECKED) | {f"libstemmer-{n}" for n in CROSS_CHECKED}
    assert {f"snowball-{name}" for name in shipped} <= set(STEMMERS)


@pytest.mark.parametrize("algorithm", sorted(LANGUAGES.values()))
def test_stemmer_reproduces_the_snowball_vocabulary(algorithm: str) -> None:
    if algorithm != "english":
        pytest.importorskip("snowballstemmer", reason='pip install ".[languages]"')
    stem = language_stemmer(algorithm)
    pairs = _vocabulary(algorithm)
    assert len(pairs) > 1000
    mismatches = [(word, want, got) for word, want in pairs if (got := stem(word)) != want]
    assert len(mismatches) == DEPARTURES.get(algorithm, 0), (
        f"{algorithm}: {len(mismatches)} of {len(pairs)} words stem differently; "
        f"first 20 (word, expected, got): {mismatches[:20]}"
    )


@pytest.mark.parametrize(
    ("tag", "algorithm"),
    [
        ("de", "german"),
        ("de-AT", "german"),
        ("pt_BR", "portuguese"),
        ("nb", "norwegian"),
        ("French", "french"),
        ("xx", None),
        ("", None),
    ],
)
def test_language_tags_resolve_by_their_primary_subtag(tag: str, algorithm: str | None) -> None:
    assert resolve_language(tag) == algorithm


def test_unknown_language_is_refused_with_the_choices() -> None:
    with pytest.raises(ConfigurationError, match=r"unknown language 'klingon'.*de, el"):
        Analyzer.for_language("klingon")


def test_missing_snowballstemmer_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys

    language_stemmer.cache_clear()
    monkeypatch.setitem(sys.modules, "snowballstemmer", None)
    monkeypatch.setitem(sys.modules, "snowballstemmer.german_stemmer", None)
    try:
        with pytest.raises(ConfigurationError, match=r"snowballstemmer.*\[languages\]"):
            Analyzer.for_language("de")
    finally:
        language_stemmer.cache_clear()


def test_folding_strips_diacritics_but_keeps_other_marks() -> None:
    assert languages.fold_diacritics("zähne") == "zahne"
    assert languages.fold_diacritics("élève") == "eleve"
    assert languages.fold_diacritics("øß") == "øß"
    assert languages.fold_diacritics("नमस्ते") == "नमस्ते"  # virama and vowel signs stay


def test_identities_before_languages_are_unchanged_and_new_ones_round_trip() -> None:
    """Existing collections keep their identity bytes; fold and language are bound in."""
    base = (
        '{"cjk":"bigram","name":"groundkit.standard","stemmer":"%s","stopwords":"%s","version":2}'
    )
    assert Analyzer(headings=0, markup=False).identity_json == base % ("porter", "lucene-english")
    english = Analyzer(stemmer="snowball-english", headings=0, markup=False)
    assert english.identity_json == base % (
        "snowball-english",
        "lucene-english",
    )
    old = Analyzer.from_identity(json.loads(base % ("porter", "lucene-english")), subject="c")
    assert old.headings == 0 and old == Analyzer(headings=0, markup=False)  # before adr/0065
    folded = Analyzer.for_language("en", fold=True)
    assert folded.identity["fold"] == "diacritics"
    assert folded.stopwords == "snowball-english"
    rebuilt = Analyzer.from_identity(folded.identity, subject="c")
    assert rebuilt == folded and rebuilt.terms("Élèves running") == ["eleves", "run"]


def test_the_pure_python_stemmer_is_used_even_beside_pystemmer() -> None:
    """snowballstemmer.stemmer() would hand out PyStemmer's C stemmer where installed, which may
    come from another Snowball release: the collection's identity names the pure one's."""
    pytest.importorskip("snowballstemmer", reason='pip install ".[languages]"')
    stem = language_stemmer("german")
    assert type(stem.__self__).__module__ == "snowballstemmer.german_stemmer"  # type: ignore[attr-defined]
    assert Analyzer.for_language("de").identity["release"].startswith("snowballstemmer ")


def test_a_collection_stemmed_by_another_release_is_refused_with_the_pin() -> None:
    pytest.importorskip("snowballstemmer", reason='pip install ".[languages]"')
    identity = {**Analyzer.for_language("de").identity, "release": "snowballstemmer 2.2.0"}
    with pytest.raises(
        IndexIdentityError, match=r'stemmed by snowballstemmer 2\.2\.0.*"snowballstemmer==2\.2\.0"'
    ):
        Analyzer.from_identity(identity, subject="c")
