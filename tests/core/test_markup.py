"""The reST markup a reader never sees is left out of analysis (adr/0073)."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

import groundkit
from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.markup import without_markup
from groundkit.retrieval import Searcher
from groundkit.retrieval.highlight import highlight_spans

REST = (
    "Call :meth:`save` or :py:class:`~django.db.models.Model` and `saved`:ref: text, read\n"
    "`the guide <https://example.org/mod/guide>`_ and :doc:`the tutorial </intro/part1>`.\n"
    "\n"
    ".. _mod_dav: https://httpd.apache.org/docs/mod/mod_dav.html\n"
    ".. _topics-models:\n"
)


def test_role_names_targets_and_embedded_uris_are_blanked_in_place() -> None:
    out = without_markup(REST)
    assert len(out) == len(REST)
    for markup in (":meth:", ":py:class:", ":ref:", ":doc:", "https", "`_", "mod_dav", "topics-"):
        assert markup not in out, markup
    kept = ("Call ", "`save`", "`~django.db.models.Model`", "`saved`", "`the guide", " and ")
    for text in kept:
        assert text in out and out.index(text) == REST.index(text), text


def test_what_looks_like_markup_inside_literals_or_times_stays() -> None:
    text = "Write ``:mod:`` roles, meet at 10:30:`x` and compare a <b> tag with `c`."
    assert without_markup(text) == text


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from(list(":`<>_. \nabmodthe-/")), max_size=80))
def test_blanking_only_turns_characters_into_spaces(text: str) -> None:
    out = without_markup(text)
    assert len(out) == len(text)
    assert all(b in (a, " ") for a, b in zip(text, out, strict=True))


def test_a_chunks_terms_leave_the_markup_out_unless_built_before_it() -> None:
    terms = Analyzer().chunk_terms(REST, [":mod:`django.contrib.admin`"], None)
    assert "meth" not in terms and "mod" not in terms and "doc" not in terms
    assert terms[:7] == ["call", "save", "django.db.models.model", "save", "text", "read", "guid"]
    assert terms[7:] == ["tutori", *["django.contrib.admin"] * 3]  # no "_" of "`_"
    identity = Analyzer().identity
    assert identity["markup"] == "rst"
    old = Analyzer.from_identity({k: v for k, v in identity.items() if k != "markup"}, subject="c")
    assert not old.markup and {"meth", "mod"} <= set(old.chunk_terms(REST, [], None))
    assert Analyzer.from_identity(identity, subject="c") == Analyzer()


def test_a_begun_word_that_is_only_a_role_name_completes(tmp_path: Path) -> None:
    """``meth`` stands in the text only as a role: a search box completes it to ``method``,
    as it would have done had the page been indexed as Sphinx renders it."""
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    roles = "\n\n".join(f"Call :meth:`item{n}` and :meth:`other{n}` here." for n in range(12))
    (corpus / "api.txt").write_text(f"API\n===\n\n{roles}\n", encoding="utf-8")
    (corpus / "guide.txt").write_text(
        "Guide\n=====\n\nA method is a function bound to an object.\n", encoding="utf-8"
    )
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index, calibrate=False)
    with Searcher.open(index) as searcher:
        found = searcher.search("meth", 3, prefix=True)
        assert [r.citation.source for r in found.results][:1] == ["guide.txt"]
        assert found.metadata["expansions"] == {"prefix": {"meth": ["method"]}}
        assert not searcher.search("meth", 3).results  # the role name is no indexed word
        cited = searcher.search("item3", 1).results[0].citation
    assert ":meth:`item3`" in cited.text  # the cited text is the source's, markup kept
    assert groundkit.verify_citation(cited, corpus).verdict == "verified"


def test_highlights_mark_no_markup_unless_built_before_it() -> None:
    text = "A :class:`Form` is a class; see `classes <https://x.org/class>`_."
    marked = highlight_spans(Analyzer(), {"class"}, text)
    assert [text[start:end] for start, end in marked] == ["class", "classes"]
    assert marked[0][0] == text.index("a class") + 2  # not the role's
    before = highlight_spans(Analyzer(markup=False), {"class"}, text)
    assert [text[start:end] for start, end in before] == ["class", "class", "classes", "class"]
