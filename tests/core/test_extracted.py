"""``extracted`` sources: HTML (standard library) and PDF (pypdf, the ``pdf`` extra).

Citations index the extracted text; verify re-extracts with the recorded extractor identity.
PDF tests need pypdf: they skip without it, except where GROUNDKIT_REQUIRE_PYPDF=1 (the tox
``sources`` env), where a missing pypdf fails them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from pathlib import Path
from types import ModuleType

import pytest

import groundkit
from groundkit import Searcher
from groundkit.extract import ExtractorIdentity, extractor_for_source, register_extractor
from groundkit.extract.html import HtmlExtractor, html_to_text
from groundkit.retrieval.citations import verify_citation

MakePdf = Callable[[list[list[str]]], bytes]

PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>Pumps</title>
<style>body { color: red }</style><script>var tracking = "spyware";</script></head>
<body><header><a href="/">Site home</a></header>
<nav><ul><li>Navigation link</li></ul></nav>
<main><h1>Pump maintenance</h1>
<p>Check the <b>impeller</b> seals   every week &amp; log it.</p>
<h2>Priming</h2>
<p>Open the bleed valve before priming the pump.</p>
<pre>valve --open bleed
pump --prime</pre>
<div hidden>hidden instructions</div>
</main>
<footer>Copyright footer</footer>
</body></html>
"""


def test_html_drops_boilerplate_and_keeps_headings_and_code() -> None:
    text = html_to_text(PAGE)
    assert text == (
        "# Pump maintenance\n\n"
        "Check the impeller seals every week & log it.\n\n"
        "## Priming\n\n"
        "Open the bleed valve before priming the pump.\n\n"
        "```\nvalve --open bleed\npump --prime\n```\n"
    )
    for boilerplate in ("spyware", "Navigation", "Site home", "Copyright", "hidden", "color"):
        assert boilerplate not in text
    assert html_to_text(PAGE) == text  # deterministic


def test_html_keeps_an_article_header_and_lists() -> None:
    page = "<article><header><h1>Title</h1></header><ul><li><p>one</p></li><li>two</li></ul>"
    assert html_to_text(page) == "# Title\n\n- one\n\n- two\n"


def test_html_charset_is_read_and_undecodable_bytes_are_refused() -> None:
    extractor = HtmlExtractor()
    latin = '<meta charset="iso-8859-1"><p>caf\xe9</p>'.encode("latin-1")
    assert extractor.extract(latin, name="a.html").text == "café\n"
    with pytest.raises(groundkit.IngestionError, match=r"a\.html: is not valid utf-8") as info:
        extractor.extract(b"<p>\xff\xfe\xfa</p>", name="a.html")
    assert info.value.reason == "not_decodable"


def test_html_is_ingested_cited_and_verified(tmp_path: Path) -> None:
    corpus = tmp_path / "site"
    corpus.mkdir()
    (corpus / "pumps.html").write_text(PAGE, encoding="utf-8")
    index = tmp_path / "index"
    report = groundkit.ingest(corpus, index_dir=index)
    assert report.indexed == ["pumps.html"] and report.ok
    with Searcher.open(index) as retriever:
        results = retriever.search("bleed valve priming").results
        top = results[0]
        assert top.citation.source_class == "extracted"
        assert top.metadata["heading_path"] == ["Pump maintenance", "Priming"]
        assert "<p>" not in top.content
        payload = top.to_dict()
        assert payload["source_class"] == "extracted"
        assert payload["extractor"] == HtmlExtractor().identity.to_dict()
        assert payload["start_page"] is None and payload["end_page"] is None
        assert retriever.verify(top).verdict == "verified"
        root = retriever.document_of(top).root
    assert "```\nvalve --open bleed" in top.content  # the code stays with its heading

    (corpus / "pumps.html").write_text(PAGE.replace("bleed valve", "drain valve"), "utf-8")
    check = verify_citation(top.citation, root)
    assert check.verdict == "drifted"


def test_a_changed_extractor_version_makes_citations_unresolvable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "site"
    corpus.mkdir()
    (corpus / "pumps.html").write_text(PAGE, encoding="utf-8")
    groundkit.ingest(corpus, index_dir=tmp_path / "index")
    with Searcher.open(tmp_path / "index") as retriever:
        top = retriever.search("impeller").results[0]
        root = retriever.document_of(top).root
    monkeypatch.setattr("groundkit.extract.html.VERSION", "999")
    check = verify_citation(top.citation, root)
    assert check.verdict == "unresolvable"
    assert '"version":"2"' in check.reason and '"version":"999"' in check.reason
    assert "re-ingest" in check.reason


def test_an_unknown_extractor_is_unresolvable_never_guessed(tmp_path: Path) -> None:
    (tmp_path / "a.html").write_text("<p>hello</p>", encoding="utf-8")
    identity = ExtractorIdentity("html-lxml", "9", "main-text", {})
    citation = groundkit.Citation(
        "a.html", "extracted", 0, 5, "hello", 1, 1, extractor=identity.to_json()
    )
    check = verify_citation(citation, tmp_path)
    assert check.verdict == "unresolvable" and "html-lxml" in check.reason


def test_a_registered_extractor_reads_its_extension(tmp_path: Path) -> None:
    class Upper:
        identity = ExtractorIdentity("upper", "1", "plain", {})

        def extract(self, data: bytes, *, name: str) -> groundkit.extract.Extraction:
            return groundkit.extract.Extraction(data.decode().upper())

    register_extractor("upper", Upper, [".up"])
    try:
        (tmp_path / "c").mkdir()
        (tmp_path / "c" / "a.up").write_text("quiet words", encoding="utf-8")
        settings = groundkit.IngestSettings(extensions=(".up",))
        report = groundkit.ingest(tmp_path / "c", index_dir=tmp_path / "i", settings=settings)
        assert report.indexed == ["a.up"]
        with Searcher.open(tmp_path / "i") as retriever:
            top = retriever.search("quiet").results[0]
            assert top.content == "QUIET WORDS" and retriever.verify(top).ok
    finally:
        from groundkit.extract import extractor_registry

        extractor_registry.EXTRACTORS.reset()


def test_a_pdf_without_pypdf_is_refused_naming_the_extra(
    tmp_path: Path, make_pdf: MakePdf, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pypdf", None)  # import pypdf now raises ImportError
    corpus = tmp_path / "docs"
    corpus.mkdir()
    (corpus / "manual.pdf").write_bytes(make_pdf([["Pump manual"]]))
    (corpus / "notes.md").write_text("# Notes\n\nPump notes.\n", encoding="utf-8")
    report = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    assert report.indexed == ["notes.md"]
    [refusal] = report.refused
    assert (refusal.source, refusal.reason) == ("manual.pdf", "extractor_missing")
    assert 'pip install ".[pdf]"' in refusal.message
    with pytest.raises(groundkit.IngestionError, match=r"\.\[pdf\]"):
        extractor_for_source("x.pdf")


def test_a_mixed_folder_cites_pdf_pages_and_verifies(
    tmp_path: Path, make_pdf: MakePdf, pypdf: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "docs"
    corpus.mkdir()
    pdf = make_pdf(
        [
            ["Pump manual", "Introduction to the station."],
            ["Impeller inspection", "Inspect the impeller for cavitation damage."],
            ["Valves", "Grease the gate valves yearly."],
        ]
    )
    (corpus / "manual.pdf").write_bytes(pdf)
    (corpus / "pumps.html").write_text(PAGE, encoding="utf-8")
    (corpus / "notes.md").write_text("# Notes\n\nChlorine dosing notes.\n", encoding="utf-8")
    (corpus / "guide.rst").write_text("Guide\n=====\n\nSampling guide text.\n", "utf-8")
    index = tmp_path / "index"
    report = groundkit.ingest(corpus, index_dir=index)
    assert report.ok and sorted(report.indexed) == [
        "guide.rst",
        "manual.pdf",
        "notes.md",
        "pumps.html",
    ]
    with Searcher.open(index) as retriever:
        results = retriever.search("cavitation damage").results
        top = results[0]
        assert top.source == "manual.pdf" and top.citation.source_class == "extracted"
        assert (top.citation.start_page, top.citation.end_page) == (2, 2)
        payload = top.to_dict()
        assert payload["extractor"]["name"] == "pdf"
        assert pypdf.__version__ in payload["extractor"]["version"]
        assert (payload["start_page"], payload["end_page"]) == (2, 2)
        assert retriever.verify(top).verdict == "verified"
        root = retriever.document_of(top).root
        every = [r for r in retriever.search("pump manual impeller valves", top_k=50).results]
    assert all(verify_citation(r.citation, root).ok for r in every)

    monkeypatch.setattr("groundkit.extract.pdf.REVISION", "2")
    changed = verify_citation(top.citation, root)
    assert changed.verdict == "unresolvable" and "re-ingest" in changed.reason
    monkeypatch.undo()

    edited = pdf.replace(b"cavitation damage", b"corrosion pits!!!")
    (corpus / "manual.pdf").write_bytes(edited)
    assert verify_citation(top.citation, root).verdict == "drifted"


def test_a_pdf_citation_is_unresolvable_once_pypdf_is_gone(
    tmp_path: Path, make_pdf: MakePdf, pypdf: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "m.pdf").write_bytes(make_pdf([["alpha beta"], ["gamma delta"]]))
    groundkit.ingest(tmp_path / "c", index_dir=tmp_path / "i")
    with Searcher.open(tmp_path / "i") as retriever:
        top = retriever.search("gamma").results[0]
        root = retriever.document_of(top).root
    assert top.citation.start_page == 2
    monkeypatch.setitem(sys.modules, "pypdf", None)
    check = verify_citation(top.citation, root)
    assert check.verdict == "unresolvable" and 'pip install ".[pdf]"' in check.reason


def test_a_broken_pdf_is_refused_with_its_name(tmp_path: Path, pypdf: ModuleType) -> None:
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "broken.pdf").write_bytes(b"%PDF-1.4\nnot really a pdf")
    report = groundkit.ingest(tmp_path / "c", index_dir=tmp_path / "i")
    [refusal] = report.refused
    assert refusal.source == "broken.pdf" and refusal.reason in ("unreadable_pdf",)


def test_the_report_counts_skipped_extensions_and_classes(tmp_path: Path) -> None:
    corpus = tmp_path / "mixed"
    corpus.mkdir()
    (corpus / "a.md").write_text("# A\n\npumps\n", encoding="utf-8")
    (corpus / "b.html").write_text("<h1>B</h1><p>valves</p>", encoding="utf-8")
    for name in ("c.png", "d.png", "e.py", "Makefile"):
        (corpus / name).write_bytes(b"x")
    report = groundkit.ingest(corpus, index_dir=tmp_path / "index")
    assert report.skipped == {".png": 2, ".py": 1, "": 1}
    assert report.classes == {"a.md": "text", "b.html": "extracted"}
    assert report.extractors == {"b.html": "html 2 (main-text)"}
    assert not report.nothing_matched
    summary = report.summary()
    assert "4 skipped by extension" in summary and ".png 2, (no extension) 1, .py 1" in summary
    assert "written by class: text 1, extracted 1 via html 2 (main-text) x1" in summary
    assert report.to_dict()["skipped"] == {"": 1, ".png": 2, ".py": 1}


def test_nothing_matched_is_said_and_exits_4(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from groundkit.cli import main

    corpus = tmp_path / "pictures"
    corpus.mkdir()
    (corpus / "a.png").write_bytes(b"x")
    (corpus / "b.docx").write_bytes(b"x")
    code = main(["ingest", str(corpus), "--index-dir", str(tmp_path / "index")])
    out = capsys.readouterr().out
    assert code == 4
    assert "nothing matched" in out and ".docx 1, .png 1" in out and "--extensions" in out
    code = main(["ingest", str(corpus), "--index-dir", str(tmp_path / "index"), "--json"])
    captured = capsys.readouterr()
    assert code == 4 and "nothing matched" in captured.err
    assert json.loads(captured.out)["nothing_matched"] is True


def test_malformed_html_is_read_whole_and_in_linear_time() -> None:
    # Not timed: a quadratic walk over 100,000 unclosed tags shows as a stuck test run.
    stray = "<nav>" + "<div>" * 100_000 + "</span>" * 100_000 + "</nav><p>after the nav</p>"
    assert html_to_text(stray) == "after the nav\n"
    assert (
        html_to_text("<p>intro</p><pre>code\n  left open")
        == "intro\n\n```\ncode\n  left open\n```\n"
    )
    assert html_to_text("") == "" and html_to_text("<script>x</script>") == ""


def test_an_unchanged_extracted_file_is_skipped_without_extracting(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "site"
    corpus.mkdir()
    (corpus / "pumps.html").write_text(PAGE, encoding="utf-8")
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index)

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("an unchanged file was extracted again")

    with monkeypatch.context() as patched:
        patched.setattr(HtmlExtractor, "extract", refuse)
        assert groundkit.ingest(corpus, index_dir=index).unchanged == ["pumps.html"]
    (corpus / "pumps.html").write_text(PAGE.replace("impeller", "propeller"), encoding="utf-8")
    assert groundkit.ingest(corpus, index_dir=index).replaced == ["pumps.html"]
    monkeypatch.setattr("groundkit.extract.html.VERSION", "999")  # a new extractor re-extracts
    assert groundkit.ingest(corpus, index_dir=index).replaced == ["pumps.html"]
