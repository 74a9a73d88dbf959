"""Text for people to read: a passage without its reStructuredText and Markdown markup.

Titles and snippets show ``User``, not ````User````; ``Model``, not
``:class:`~django.db.Model``` (Sphinx's ``~`` shows the last name; without it, the whole target,
as Sphinx does); no ``=====`` underline rows, simple tables' ``=== ===`` borders, ``#`` heading
marks, backslash escapes, ``.. _label:`` lines or directive markers (``.. class:: QuerySet()``
shows ``QuerySet()``; ``.. code-block:: python``, ``.. setting:: DEBUG`` and their ``:option:``
lines show nothing), and a paragraph's ``::`` shows as Sphinx renders it (``like this:``).
Inline markup may run over a line break inside a paragraph, as reST allows. The citation is
untouched: it still indexes the source's code points, and ``plain_text`` says, for every
character it keeps, where that character is in the source, so a highlight found in the source
can be drawn on the display text (``display_spans``). Every kept character is a character of the
source: markup is only ever removed, never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["display_spans", "plain_text"]

# A character of inline markup's text: anything but a backtick, and a line break only inside a
# paragraph (reST lets inline markup run over one; a blank line ends it).
_IN = r"(?:[^`\n]|\n(?![ \t]*\n))"
_IN_NO_TARGET = r"(?:[^`<\n]|\n(?![ \t]*\n))"
_ROLE = r":[\w.+-]+(?::[\w.+-]+)*:"  # :class:, :py:meth:, :djadmin:
_MARKUP = re.compile(
    r"(?m)^[ \t]*([=\-~^\"'`#*+:._])\1{2,}[ \t]*(?:\n|$)"  # an over/underline row
    r"|^[ \t]*(?:={2,}(?:[ \t]+={2,})+|-{2,}(?:[ \t]+-{2,})+)[ \t]*(?:\n|$)"  # table borders
    r"|^[ \t]*\.\.[ \t]+_[^\n]*:[ \t]*(?:\n|$)"  # a label: .. _name:
    r"|^[ \t]*\.\.[ \t]+(?P<directive>[\w-]+(?::[\w-]+)*)[ \t]*::"  # .. name:: argument
    r"(?:[ \t]+(?P<argument>[^\n]*?))?[ \t]*"
    r"(?:\n[ \t]+:[\w-]+:(?:[ \t][^\n]*)?)*(?=\n|$)"  # and its :option: lines
    r"|^[ \t]*\.\.(?:[ \t][^\n]*)?(?=\n|$)"  # a comment
    r"|^[ \t]*#{1,6}[ \t]+"  # a Markdown heading's marks
    rf"|``(?P<literal>{_IN}+?)``"  # ``literal``
    rf"|{_ROLE}`~(?:{_IN_NO_TARGET}*?\.)?(?P<role_last>(?:[^`<.\n]|\n(?![ \t]*\n))+)`"  # ~a.b.Last
    rf"|{_ROLE}`(?P<role_text>{_IN_NO_TARGET}+?)\s*<[^`>]*>`"  # :role:`text <target>`
    rf"|{_ROLE}`(?P<role_whole>{_IN_NO_TARGET}+)`"  # :role:`a.b.Whole`
    rf"|`(?P<link_text>{_IN_NO_TARGET}+?)\s*<[^`>]*>`__?"  # `text <url>`_
    rf"|`(?P<ref>{_IN}+?)`__?(?![\w`])"  # `reference`_
    r"|\[(?P<md_link>[^\]\n]+)\]\([^)\n]*\)"  # [text](url)
    r"|\*\*(?P<strong>[^*\n]+?)\*\*"  # **strong**
    r"|(?<![\w*])\*(?P<em>[^*\s][^*\n]*?)\*(?![\w*])"  # *emphasis*
    r"|`(?P<code>[^`\n]+)`"  # `code` (Markdown) or `interpreted text` (reST)
    r"|(?<=[^\s:]:):(?=[ \t]*$)"  # "Paragraph::" before a literal block shows "Paragraph:"
    r"|(?<!\S)[ \t]*::(?=[ \t]*$)"  # "Paragraph ::" and a lone "::" show nothing
    r"|\\[ \t]"  # an escaped space, which joins words: ``QuerySet``\ s
    r"|\\(?P<escaped>[^\s])"  # an escaped character: ``QuerySet``\s, \*
    r"|``"  # the other half of a literal a passage's boundary cut
)
_KEPT = (
    "literal",
    "role_last",
    "role_text",
    "role_whole",
    "link_text",
    "ref",
    "md_link",
    "strong",
    "em",
    "code",
    "escaped",
)
# Directives whose argument a rendered page does not show (Sphinx and Django's own: targets,
# code blocks, version notes); of the others (.. class:: QuerySet(), .. admonition:: Title)
# the argument stays. Their lines vanish with their line break.
_UNSHOWN_DIRECTIVES = frozenset(
    (
        "code",
        "code-block",
        "console",
        "contents",
        "currentmodule",
        "default-role",
        "deprecated",
        "fieldlookup",
        "figure",
        "glossary",
        "highlight",
        "image",
        "include",
        "index",
        "literalinclude",
        "module",
        "program",
        "py:currentmodule",
        "py:module",
        "raw",
        "setting",
        "sourcecode",
        "templatefilter",
        "templatetag",
        "toctree",
        "versionadded",
        "versionchanged",
        "versionremoved",
    )
)


def plain_text(text: str) -> tuple[str, list[int]]:
    """``text`` without its inline markup, and for each character kept its offset in ``text``
    (code points)."""
    out: list[str] = []
    where: list[int] = []
    at = 0
    for found in _MARKUP.finditer(text):
        out.append(text[at : found.start()])
        where.extend(range(at, found.start()))
        at = found.end()
        directive = found.group("directive")
        if directive is not None and directive.lower() in _UNSHOWN_DIRECTIVES:
            at += text.startswith("\n", at)  # the line goes, its break too
            continue
        if directive is not None and found.group("argument"):  # its own inline markup too
            shown, kept = plain_text(found.group("argument"))
            out.append(shown)
            where.extend(found.start("argument") + i for i in kept)
            continue
        group = next((g for g in _KEPT if found.group(g) is not None), None)
        if group is not None:
            start, end = found.span(group)
            out.append(text[start:end])
            where.extend(range(start, end))
    out.append(text[at:])
    where.extend(range(at, len(text)))
    return "".join(out), where


def display_spans(where: Sequence[int], spans: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """``spans`` of the source (code points, end-exclusive) on the display text whose
    characters come from ``where``: each span covers the kept characters inside it; a span
    that kept none is dropped."""
    out: list[tuple[int, int]] = []
    for start, end in spans:
        inside = [i for i, source in enumerate(where) if start <= source < end]
        if inside:
            out.append((inside[0], inside[-1] + 1))
    return out
