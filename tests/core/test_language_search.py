"""Searching with a language: the known-item check, identity binding, diacritic folding."""

from __future__ import annotations

from pathlib import Path

import pytest
from language_corpus import FRENCH, GERMAN

from conftest import WriteCorpus
from groundkit.analysis.analyzer import Analyzer
from groundkit.cli import ExitCode, main
from groundkit.errors import IndexIdentityError
from groundkit.ingest import ingest
from groundkit.retrieval import Retriever

pytest.importorskip("snowballstemmer", reason='pip install ".[languages]"')

CORPORA = {"de": GERMAN, "fr": FRENCH}


def _rank_one_hits(
    write_corpus: WriteCorpus, tmp_path: Path, language: str, analyzer: Analyzer
) -> int:
    corpus = CORPORA[language]
    root = write_corpus({name: text for name, text, _ in corpus})
    index = tmp_path / f"index-{analyzer.stemmer}"
    report = ingest(root, index_dir=index, collection=language, analyzer=analyzer)
    assert len(report.indexed) == len(corpus)
    hits = 0
    with Retriever.open(index, language) as retriever:
        for name, _, query in corpus:
            results = retriever.search(query, top_k=1).results
            hits += bool(results) and results[0].source == name
    return hits


@pytest.mark.parametrize("language", sorted(CORPORA))
def test_known_items_rank_first_with_their_language(
    write_corpus: WriteCorpus, tmp_path: Path, language: str
) -> None:
    """Queries in other inflected forms find their paragraph first with the language's
    analysis (10/10 each); the default English analysis manages 7/10 (German), 9/10 (French)."""
    with_language = _rank_one_hits(
        write_corpus, tmp_path, language, Analyzer.for_language(language)
    )
    english = _rank_one_hits(write_corpus, tmp_path, language, Analyzer())
    assert with_language >= 9, with_language
    assert english < with_language, (english, with_language)


def test_a_language_without_a_snowball_stop_list_has_none() -> None:
    assert Analyzer.for_language("ta").stopwords == "none"
    assert Analyzer.for_language("de").stopwords == "snowball-german"


def test_a_search_with_another_language_is_refused(tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest(
        tmp_path,
        index_dir=index,
        analyzer=Analyzer.for_language("de"),
        texts=[("a.txt", GERMAN[0][1])],
    )
    with pytest.raises(IndexIdentityError, match=r"snowball-german.*not.*snowball-french"):
        Retriever.open(index, analyzer=Analyzer.for_language("fr"))
    with Retriever.open(index) as retriever:  # the collection's own: German
        assert retriever.search("Pakete installiert").results[0].source == "a.txt"


@pytest.mark.parametrize(("fold", "found"), [(True, 1), (False, 0)])
def test_fold_diacritics_lets_unaccented_queries_find_accented_words(
    capsys: pytest.CaptureFixture[str],
    write_corpus: WriteCorpus,
    tmp_path: Path,
    fold: bool,
    found: int,
) -> None:
    root = write_corpus({"eleves.txt": "Les élèves répètent la leçon.\n"})
    flags = ["--index-dir", str(tmp_path / "index"), "--language", "fr"]
    flags += ["--fold-diacritics"] if fold else []
    assert main(["ingest", str(root), *flags]) == ExitCode.OK
    capsys.readouterr()
    code = main(["search", "eleve repeter lecon", *flags, "--json"])
    out = capsys.readouterr().out
    assert code == ExitCode.OK
    assert out.count('"source": "eleves.txt"') == found, out
    refused = main(["search", "eleve", "--index-dir", str(tmp_path / "index"), "--language", "de"])
    assert refused != ExitCode.OK
    assert "snowball-french" in capsys.readouterr().err
