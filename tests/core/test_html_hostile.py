"""Hostile HTML (issue 29, items 11 and 12): a page that declares a codec which is no
character set is refused by name while the rest of the folder is indexed, on every run; text
hidden by inline CSS is never indexed."""

from __future__ import annotations

from pathlib import Path

import pytest

import groundkit
from groundkit.extract.html import html_to_text

CODECS = ["zlib", "base64", "rot13", "hex", "bz2", "uu", "quopri", "undefined", "punycode"]


@pytest.mark.parametrize("declared", ["meta", "http-equiv"])
def test_a_codec_that_is_no_character_set_is_refused_by_name_and_the_batch_goes_on(
    tmp_path: Path, declared: str
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "good.html").write_text("<p>Hydrants are flushed twice a year.</p>", encoding="utf-8")
    for codec in CODECS:
        head = (
            f'<meta charset="{codec}">'
            if declared == "meta"
            else f'<meta http-equiv="Content-Type" content="text/html; charset={codec}">'
        )
        (site / f"{codec}.html").write_text(f"{head}<p>Valves.</p>", encoding="utf-8")
    for _ in range(2):  # a re-run stops at none of them either
        report = groundkit.ingest(site, index_dir=tmp_path / "index")
        assert sorted(r.source for r in report.refused) == sorted(f"{c}.html" for c in CODECS)
        for refusal in report.refused:
            assert refusal.source.removesuffix(".html") in refusal.message
    with groundkit.Searcher.open(tmp_path / "index") as retriever:
        assert retriever.search("hydrants").results[0].citation.source == "good.html"


@pytest.mark.parametrize(
    "hidden",
    [
        '<p style="display:none">SECRET</p>',
        '<p style="color: red; display : none !important">SECRET</p>',
        '<div style="visibility:hidden"><p>SECRET</p></div>',
        '<span style="VISIBILITY: collapse;">SECRET</span>',
        "<p hidden>SECRET</p>",
        '<p aria-hidden="true">SECRET</p>',
    ],
)
def test_text_hidden_by_inline_css_is_not_indexed(hidden: str) -> None:
    text = html_to_text(f"<main><p>Shown before.</p>{hidden}<p>Shown after.</p></main>")
    assert "SECRET" not in text
    assert "Shown before." in text and "Shown after." in text


@pytest.mark.parametrize(
    "visible",
    [
        '<p style="display:block">KEPT</p>',
        '<p style="xdisplay:none">KEPT</p>',
        "<p style=\"content: 'display:none'x\">KEPT</p>",
    ],
)
def test_styles_that_do_not_hide_keep_their_text(visible: str) -> None:
    assert "KEPT" in html_to_text(f"<main>{visible}</main>")
