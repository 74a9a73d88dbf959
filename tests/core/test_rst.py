"""reStructuredText structure: section titles, directives, literal blocks, lists, snippets."""

from __future__ import annotations

from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

import groundkit
from groundkit import Searcher
from groundkit.chunking import chunk_text, kind_for
from groundkit.chunking.rst import looks_like_rst, rst_blocks
from groundkit.config import ChunkerSettings

# Shaped like Django's docs (docs/topics/http/urls.txt): .txt, overlined title, labels, roles.
DJANGO_LIKE = """\
==============
URL dispatcher
==============

A clean, elegant URL scheme is an important detail in a high-quality web application.

.. _how-django-processes-a-request:

How Django processes a request
==============================

#. Django determines the root URLconf module to use, the value of the
   :setting:`ROOT_URLCONF` setting, unless :attr:`~django.http.HttpRequest.urlconf` is set.

#. Django loads that Python module and looks for the variable ``urlpatterns``.

Path converters
---------------

The following path converters are available by default:

.. code-block:: python

    from django.urls import path

    urlpatterns = [
        path("articles/<int:year>/", views.year_archive),
    ]

Here's a sample URLconf::

    from django.urls import re_path

.. note::

   Converters are plain classes.

Error handling
==============

When Django can't find a match, it calls the error-handling view.
"""


def blocks_of(text: str, target: int = 1000) -> list[tuple[str, tuple[str, ...], str]]:
    settings = ChunkerSettings(target_chars=target, overlap_chars=0)
    return [
        (s.kind, s.heading_path, text[s.start : s.end])
        for s in chunk_text(text, kind="rst", settings=settings)
    ]


def test_titles_give_heading_paths_by_adornment_order() -> None:
    paths = [path for _, path, _ in blocks_of(DJANGO_LIKE, target=64)]
    assert ("URL dispatcher",) in paths
    assert ("URL dispatcher", "How Django processes a request") in paths
    assert ("URL dispatcher", "How Django processes a request", "Path converters") in paths
    assert ("URL dispatcher", "Error handling") in paths  # "=" underline: level 2 again


def test_a_code_block_directive_stays_with_its_code() -> None:
    start = DJANGO_LIKE.index(".. code-block:: python")
    directive = DJANGO_LIKE[start : DJANGO_LIKE.index("]", start) + 1]
    for target in (160, 200, 400, 1000):
        found = [c for c in blocks_of(DJANGO_LIKE, target) if directive in c[2]]
        assert len(found) == 1, target
        for _, _, text in blocks_of(DJANGO_LIKE, target):
            assert not text.rstrip().endswith(("::", ".. code-block:: python"))
    [(kind, path, text)] = [c for c in blocks_of(DJANGO_LIKE, 160) if directive in c[2]]
    assert text == directive and kind == "code" and path[-1] == "Path converters"


def test_a_literal_block_stays_with_the_paragraph_that_opens_it() -> None:
    [text] = [c[2] for c in blocks_of(DJANGO_LIKE, target=100) if "sample URLconf" in c[2]]
    assert text.endswith("from django.urls import re_path")


def test_a_label_is_kept_with_the_title_it_names() -> None:
    [text] = [c[2] for c in blocks_of(DJANGO_LIKE, target=100) if "_how-django" in c[2]]
    assert text.startswith(".. _how-django-processes-a-request:\n\nHow Django processes")


def test_blocks_have_their_roles() -> None:
    roles = [
        (block.role, DJANGO_LIKE[block.start : block.end].split("\n", maxsplit=1)[0])
        for block in rst_blocks(DJANGO_LIKE)
    ]
    assert roles == [
        ("heading", "=============="),
        ("paragraph", "A clean, elegant URL scheme is an important detail in a high-quality web "
         "application."),
        ("heading", ".. _how-django-processes-a-request:"),
        ("list", "#. Django determines the root URLconf module to use, the value of the"),
        ("list", "#. Django loads that Python module and looks for the variable ``urlpatterns``."),
        ("heading", "Path converters"),
        ("paragraph", "The following path converters are available by default:"),
        ("code", ".. code-block:: python"),
        ("paragraph", "Here's a sample URLconf::"),
        ("paragraph", ".. note::"),
        ("heading", "Error handling"),
        ("paragraph", "When Django can't find a match, it calls the error-handling view."),
    ]  # fmt: skip


def test_txt_files_with_rest_markup_are_read_as_rest() -> None:
    assert kind_for("docs/urls.txt", DJANGO_LIKE) == "rst"
    assert kind_for("notes.txt", "Just a note.\n\nAnother paragraph.\n") == "text"
    assert kind_for("a.rst", "plain") == "rst" and kind_for("a.md", DJANGO_LIKE) == "markdown"
    assert looks_like_rst(".. note::\n\n   x\n") and not looks_like_rst("a\n==\n")


PIECES = ["Title", " ", "\n", "\r\n", "\t", "=", "-", "~", "^", "#", ".", ".. ", "::", "note", "a"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
@example(".. note::\n")
@example("a\n.. a::")
@example("Title\n====")
@example("  Title\r\n~~~~~ \n")
@example("Title\n===")
def test_the_prefilters_never_change_what_looks_like_rest(text: str) -> None:
    """``looks_like_rst`` skips its line-anchored patterns when a cheap scan finds no
    underline start or no ``..``; it says what the patterns alone say."""
    from groundkit.chunking.rst import _MARKUP, _TITLE

    expected = _TITLE.search(text) is not None or _MARKUP.search(text) is not None
    assert looks_like_rst(text) == expected


def test_django_like_docs_ingest_with_heading_paths(tmp_path: Path) -> None:
    corpus = tmp_path / "docs" / "topics"
    corpus.mkdir(parents=True)
    (corpus / "urls.txt").write_text(DJANGO_LIKE, encoding="utf-8")
    groundkit.ingest(tmp_path / "docs", index_dir=tmp_path / "index")
    with Searcher.open(tmp_path / "index") as retriever:
        top = retriever.search("error-handling view").results[0]
        assert top.metadata["heading_path"] == ["URL dispatcher", "Error handling"]
        assert retriever.verify(top).ok


def test_labels_and_bodiless_directives_stay_with_the_title_they_name() -> None:
    text = (
        "Settings\n========\n\nIntro.\n\n"
        ".. _root-urlconf:\n\n.. setting:: ROOT_URLCONF\n\n``ROOT_URLCONF``\n----------------\n\n"
        "Default: Not defined\n\n.. currentmodule:: django.urls\n\nPlain text after.\n"
    )
    blocks = [(b.role, text[b.start : b.end]) for b in rst_blocks(text)]
    assert blocks[2] == (
        "heading",
        ".. _root-urlconf:\n\n.. setting:: ROOT_URLCONF\n\n``ROOT_URLCONF``\n----------------",
    )
    assert blocks[-2] == ("paragraph", ".. currentmodule:: django.urls")
