"""Display text without markup (issue 30, item 2): what titles and snippets show, and where
each kept character is in the source, so highlights found in the source land on it."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from groundkit.retrieval.display import display_spans, plain_text

CASES = [
    ("Using ``User`` objects", "Using User objects"),
    (":class:`~django.db.models.Model`", "Model"),
    (":class:`django.db.models.Model`", "django.db.models.Model"),  # no ~: Sphinx shows it all
    ("Lives in :source:`django/core/paginator.py`.", "Lives in django/core/paginator.py."),
    ("both as a :py:term:`decorator`::\n\n    code", "both as a decorator:\n\n    code"),
    (":meth:`save() <Model.save>` and :setting:`DEBUG`", "save() and DEBUG"),
    ("Transactions\n============\n\nText.", "Transactions\n\nText."),
    ("-----\nTitle\n-----\n", "Title\n"),
    ("Read `the docs <https://example.org>`_ or `Topics`_.", "Read the docs or Topics."),
    ("# Odd name\n\nA [link](http://x) and `code`.", "Odd name\n\nA link and code."),
    ("Atomic *blocks* and **rollbacks**.", "Atomic blocks and rollbacks."),
    ("a * b * c and 2*3*4 stay", "a * b * c and 2*3*4 stay"),
    ("Making ``QuerySet``\\s lazy", "Making QuerySets lazy"),  # a reST escape
    ("``QuerySet``\\ s and \\*not emphasis\\*", "QuerySets and *not emphasis*"),
    ("``C:\\path`` stays", "C:\\path stays"),  # inside a literal, a backslash is text
    # inline markup over a line break inside a paragraph, not across a blank line
    (":ref:`from a hidden\nform <csrf-html>` or ``a\nb``", "from a hidden\nform or a\nb"),
    (":ref:`a\n\nb`", ":ref:`a\n\nb`"),
    ("`Strict\nheader`__. Then", "Strict\nheader. Then"),
    (":option:`--username <createsuperuser\n--username>` or", "--username or"),
    ('label>.<codename>"`` format', 'label>.<codename>" format'),  # a literal cut by the boundary
    # Sphinx's literal-block marker: "text::" shows "text:", "text ::" and "::" nothing
    ("during the transaction::\n\n    code", "during the transaction:\n\n    code"),
    ("like this ::\n\n::\n", "like this \n\n\n"),
    # a simple table's borders (issue 38.5); a dash inside a row stays
    (
        "=====  =====\nName   Use\n=====  =====\nA-B    x -- y\n-----  -----\n",
        "Name   Use\nA-B    x -- y\n",
    ),
    ("  ==  ==  ==\n  a   b   c", "  a   b   c"),
]

# Django's docs (issue 30): labels, targets and code-block lines vanish with their line break;
# a description's signature and an admonition's title stay; options go with their directive.
DIRECTIVES = [
    (".. _non-atomic:\n\nNon-atomic\n==========\n\nText", "\nNon-atomic\n\nText"),
    (".. setting:: MIDDLEWARE\n\nMIDDLEWARE\n----------\n", "\nMIDDLEWARE\n"),
    (".. module:: django.middleware\n   :synopsis: Built-in middleware.\n\nThis", "\nThis"),
    (".. code-block:: pycon\n    :caption: x\n\n    >>> 1", "\n    >>> 1"),
    (".. versionadded:: 5.0\n\n    The new thing.", "\n    The new thing."),
    (".. class:: QuerySet(model=None)\n\n    Usually", "QuerySet(model=None)\n\n    Usually"),
    ("    .. method:: save(force=False)\n        :noindex:\n", "save(force=False)\n"),
    (".. admonition:: Why?\n\n    Because.", "Why?\n\n    Because."),
    (".. note::\n\n    Mind it.", "\n\n    Mind it."),
    (".. admonition:: Importing ``User``\n", "Importing User\n"),  # a title's own markup
    (".. a comment, as Sphinx hides it\nText", "\nText"),
    ("A pycon line:\n\n    ... x = 1\n", "A pycon line:\n\n    ... x = 1\n"),
]


@pytest.mark.parametrize(("text", "shown"), CASES)
def test_markup_is_removed_for_display(text: str, shown: str) -> None:
    assert plain_text(text)[0] == shown


@pytest.mark.parametrize(("text", "shown"), DIRECTIVES)
def test_directive_lines_show_what_a_rendered_page_shows(text: str, shown: str) -> None:
    assert plain_text(text)[0] == shown


@given(st.text(alphabet=st.sampled_from(list("ab `*:_~<>.=-#[]()\n")), max_size=80))
def test_every_kept_character_is_the_source_character_it_maps_to(text: str) -> None:
    shown, where = plain_text(text)
    assert len(where) == len(shown)
    assert all(text[where[i]] == shown[i] for i in range(len(shown)))
    assert where == sorted(set(where))  # in order, each source character at most once


def test_a_highlight_in_the_source_lands_on_the_display_text() -> None:
    text = "See :class:`~django.db.models.Model` and ``Model.save()``."
    shown, where = plain_text(text)
    source_spans = [(m, m + 5) for m in range(len(text)) if text.startswith("Model", m)]
    spans = display_spans(where, source_spans)
    assert [shown[s:e] for s, e in spans] == ["Model", "Model"]
    assert display_spans(where, [(4, 11)]) == []  # ':class:' is not shown: nothing to mark
