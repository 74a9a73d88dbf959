"""Searching with a language: the known-item check, identity binding, diacritic folding."""

from __future__ import annotations

from pathlib import Path

import pytest
from language_corpus import FRENCH, GERMAN

from conftest import WriteCorpus
from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.languages import LANGUAGES
from groundkit.cli import ExitCode, main
from groundkit.collection import open_reader
from groundkit.errors import IndexIdentityError
from groundkit.ingestion import ingest
from groundkit.retrieval import Searcher
from groundkit.retrieval.request import SearchFilter
from groundkit.store.static_export import export_static

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
    with Searcher.open(index, language) as retriever:
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


@pytest.mark.parametrize(
    ("language", "stopwords"),
    [("de", "snowball-german"), ("ta", "lucene-tamil"), ("el", "lucene-greek"), ("yi", "none")],
)
def test_stop_words_are_snowballs_else_lucenes_else_none(language: str, stopwords: str) -> None:
    assert Analyzer.for_language(language).stopwords == stopwords


def test_every_language_but_yiddish_has_a_stop_list() -> None:
    unlisted = [code for code in LANGUAGES if Analyzer.for_language(code).stopwords == "none"]
    assert unlisted == ["yi"]


@pytest.mark.parametrize(
    ("language", "text", "kept"),
    [
        ("tr", "Bu kitap ve şu kalem", 2),  # bu, ve, şu
        ("ar", "ذهب الولد إلى المدرسة", 3),  # إلى
        ("ca", "La casa i el jardí", 2),  # la, i, el
        ("el", "Το σπίτι ΑΠΌ την πόλη", 2),  # το, από (accented), την
    ],
)
def test_lucene_stop_lists_drop_function_words(language: str, text: str, kept: int) -> None:
    """Greek's list is accentless (Lucene applies it after removing the tonos): an accented
    or capitalised function word is dropped all the same."""
    assert len(Analyzer.for_language(language).terms(text)) == kept


def test_a_search_with_another_language_is_refused(tmp_path: Path) -> None:
    index = tmp_path / "index"
    ingest(
        tmp_path,
        index_dir=index,
        analyzer=Analyzer.for_language("de"),
        texts=[("a.txt", GERMAN[0][1])],
    )
    with pytest.raises(IndexIdentityError, match=r"snowball-german.*not.*snowball-french"):
        Searcher.open(index, analyzer=Analyzer.for_language("fr"))
    with Searcher.open(index) as retriever:  # the collection's own: German
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


def _mixed_corpus() -> dict[str, str | bytes]:
    """The German paragraphs as HTML declaring ``lang="de"``, the French as Markdown with
    ``lang: fr`` front matter."""
    files: dict[str, str | bytes] = {}
    for name, text, _ in GERMAN:
        page = f'<!doctype html><html lang="de"><body><p>{text}</p></body></html>'
        files[f"de/{name.removesuffix('.txt')}.html"] = page.encode()
    for name, text, _ in FRENCH:
        files[f"fr/{name.removesuffix('.txt')}.md"] = f"---\nlang: fr\n---\n{text}\n"
    return files


def test_a_mixed_collection_ranks_each_document_with_its_own_language(
    write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    """20 known items in one collection made with ``--language de,fr``: each found first (a
    German-only analysis of the same documents refuses the French ones)."""
    root = write_corpus(_mixed_corpus())
    index = tmp_path / "index"
    report = ingest(root, index_dir=index, analyzer=Analyzer.for_languages("de,fr"))
    assert len(report.indexed) == 20 and not report.refused
    wanted = [(f"de/{n.removesuffix('.txt')}.html", q) for n, _, q in GERMAN]
    wanted += [(f"fr/{n.removesuffix('.txt')}.md", q) for n, _, q in FRENCH]
    with Searcher.open(index) as retriever:  # the collection's own analysis, both languages
        assert retriever.analyzer.identity["languages"] == ["de", "fr"]
        firsts = [retriever.search(query, top_k=1).results[0] for _, query in wanted]
        french = retriever.search("Installation", where=SearchFilter(metadata={"language": "fr"}))
    assert [hit.source[:3] for hit in french.results] == ["fr/", "fr/"]  # not de/installation
    assert sum(hit.source == source for hit, (source, _) in zip(firsts, wanted, strict=True)) >= 19
    assert all(hit.highlights for hit in firsts)  # highlighted in the document's own language
    assert {hit.metadata["language"] for hit in firsts} == {"de", "fr"}
    with open_reader(index, "default") as reader:  # re-analyzes each chunk by its language
        export_static(reader, tmp_path / "site", root)
    german_only = ingest(root, index_dir=tmp_path / "de", analyzer=Analyzer.for_language("de"))
    assert len(german_only.refused) == 10


def test_per_document_terms_carry_their_language() -> None:
    analyzer = Analyzer.for_languages("de, fr", fold=True)
    assert analyzer.document_terms("Die Zähne", None) == ["de:zahn"]  # the first by default
    assert analyzer.document_terms("Les élèves", "fr-CA") == ["fr:elev"]
    assert analyzer.terms("élèves") == ["de:eleves", "fr:elev"]
    assert analyzer.matched_spans("Les élèves répètent", {"fr:elev", "de:zahn"}) == [(4, 10)]
    rebuilt = Analyzer.from_identity(analyzer.identity, subject="c")
    assert rebuilt == analyzer and rebuilt.identity["fold"] == "diacritics"


@pytest.mark.parametrize(
    ("code", "text", "terms"),
    [
        ("fr", "L'installation d\u2019erreur qu'il", ["install", "erreur"]),  # "il": a stop word
        ("it", "dell'applicazione", ["applic"]),
        ("ca", "l'aplicació", ["aplic"]),
        ("fr", "aujourd'hui", ["aujourd'hui"]),  # "aujourd" is no elided article
        ("de", "l'installation", ["l'installation"]),  # German elides nothing
    ],
)
def test_elided_articles_are_dropped_as_lucene_does(code: str, text: str, terms: list[str]) -> None:
    assert Analyzer.for_language(code).terms(text) == terms
