"""Text for people to read: a passage without its reStructuredText and Markdown markup.

Titles and snippets show ``User``, not ````User````; ``Model``, not ``:class:`~django.db.Model```;
no ``=====`` underline rows, ``#`` heading marks or backslash escapes. The citation is
untouched: it still indexes the source's code points, and ``plain_text`` says, for every
character it keeps, where that character is in the source, so a highlight found in the source
can be drawn on the display text (``display_spans``). Every kept character is a character of
the source: markup is only ever removed, never rewritten.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["display_spans", "plain_text"]

_MARKUP = re.compile(
    r"(?m)^[ \t]*([=\-~^\"'`#*+:._])\1{2,}[ \t]*(?:\n|$)"  # an over/underline row
    r"|^[ \t]*#{1,6}[ \t]+"  # a Markdown heading's marks
    r"|``(?P<literal>[^`\n]+?)``"  # ``literal``
    r"|:[\w.+-]+:`~?(?:[^`<\n]*?\.)?(?P<role_last>[^`<.\n]+)`"  # :role:`~a.b.Last`
    r"|:[\w.+-]+:`(?P<role_text>[^`<\n]+?)\s*<[^`>\n]*>`"  # :role:`text <target>`
    r"|`(?P<link_text>[^`<\n]+?)\s*<[^`>\n]*>`__?"  # `text <url>`_
    r"|`(?P<ref>[^`\n]+?)`__?(?![\w`])"  # `reference`_
    r"|\[(?P<md_link>[^\]\n]+)\]\([^)\n]*\)"  # [text](url)
    r"|\*\*(?P<strong>[^*\n]+?)\*\*"  # **strong**
    r"|(?<![\w*])\*(?P<em>[^*\s][^*\n]*?)\*(?![\w*])"  # *emphasis*
    r"|`(?P<code>[^`\n]+)`"  # `code` (Markdown) or `interpreted text` (reST)
    r"|\\[ \t]"  # an escaped space, which joins words: ``QuerySet``\ s
    r"|\\(?P<escaped>[^\s])"  # an escaped character: ``QuerySet``\s, \*
)
_KEPT = (
    "literal",
    "role_last",
    "role_text",
    "link_text",
    "ref",
    "md_link",
    "strong",
    "em",
    "code",
    "escaped",
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
        group = next((g for g in _KEPT if found.group(g) is not None), None)
        if group is not None:
            start, end = found.span(group)
            out.append(text[start:end])
            where.extend(range(start, end))
        at = found.end()
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
