"""Declared document languages: read from ``<html lang>`` and front matter, and a document in
another language than its collection's refused (the batch goes on)."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import WriteCorpus
from groundkit.analysis.analyzer import Analyzer
from groundkit.extract.extractor import Extraction
from groundkit.extract.html import HtmlExtractor
from groundkit.extract.language import declared_language, front_matter_language, html_language
from groundkit.ingestion import ingest


@pytest.mark.parametrize(
    ("markup", "language"),
    [
        ('<!doctype html><html lang="de-AT"><body>x</body></html>', "de-AT"),
        ("<HTML class='a' LANG='fr'>", "fr"),
        ('<html xml:lang="pt_BR">', "pt_BR"),
        ("<html lang=es>", "es"),
        ('<html data-lang="de"><body lang="de">', None),
        ('<html lang="">', None),
        ("<p>no html tag</p>", None),
    ],
)
def test_html_language_reads_the_html_tag_only(markup: str, language: str | None) -> None:
    assert html_language(markup) == language


@pytest.mark.parametrize(
    ("text", "language"),
    [
        ("---\ntitle: Zähne\nlang: de\n---\n# Zähne\n", "de"),
        ('---\nlanguage: "fr-CA"  # Québec\n...\ntext\n', "fr-CA"),
        ("---\ntitle: x\n---\nlang: de\n", None),  # after the front matter: body text
        ("title\n---\nlang: de\n---\n", None),  # no front matter on the first line
        ("---\nmeta:\n  lang: de\n---\n", None),  # not top level
    ],
)
def test_front_matter_language(text: str, language: str | None) -> None:
    assert front_matter_language(text) == language


def test_declared_language_prefers_the_extractors_and_reads_front_matter_of_markdown() -> None:
    html = HtmlExtractor().extract(b'<html lang="it"><p>ciao</p></html>', name="a.html")
    assert declared_language(html) == "it"
    assert declared_language(Extraction("---\nlang: de\n---\nx", "markdown")) == "de"
    assert declared_language(Extraction("---\nlang: de\n---\nx", "text")) is None


DOCS: dict[str, str | bytes] = {
    "guide.html": b'<html lang="de"><body><p>Die Pumpe startet.</p></body></html>',
    "notes.md": "---\nlanguage: fr\n---\n# Notes\n\nLa pompe démarre.\n",
    "readme.md": "---\nlang: en-GB\n---\n# Readme\n\nThe pump starts.\n",
    "plain.txt": "The pump starts when the tank is low.\n",
}


def test_a_collection_with_a_language_refuses_documents_declaring_another(
    write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    root = write_corpus(DOCS)
    report = ingest(root, index_dir=tmp_path / "i", analyzer=Analyzer.for_language("en"))
    assert sorted(report.indexed) == ["plain.txt", "readme.md"]
    refused = {r.source: r for r in report.refused}
    assert sorted(refused) == ["guide.html", "notes.md"]
    assert {r.reason for r in refused.values()} == {"language"}
    assert "declares language 'de'" in refused["guide.html"].message
    assert "--language fr" in refused["notes.md"].message


def test_a_collection_without_a_language_accepts_every_document(
    write_corpus: WriteCorpus, tmp_path: Path
) -> None:
    root = write_corpus(DOCS)
    for analyzer in (Analyzer(), Analyzer(stemmer="snowball-english")):
        report = ingest(root, index_dir=tmp_path / analyzer.stemmer, analyzer=analyzer)
        assert len(report.indexed) == len(DOCS) and not report.refused


def test_in_memory_texts_are_checked_too(tmp_path: Path) -> None:
    report = ingest(
        tmp_path,
        index_dir=tmp_path / "i",
        analyzer=Analyzer.for_language("en"),
        texts=[("a.md", "---\nlang: de\n---\nText"), ("b.md", "Text")],
    )
    assert [r.source for r in report.refused] == ["a.md"] and report.indexed == ["b.md"]
