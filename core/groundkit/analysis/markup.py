"""The reST markup a reader of the rendered page never sees, blanked before analysis.

Sphinx renders the role ``:meth:`` of ``:meth:`save``` as nothing, a hyperlink target
(``.. _mod_dav: URL``) as nothing, and a link with an embedded URI (the ``<URL>`` of a link)
as its text alone: role names, targets, embedded URIs and a reference's closing underscores
are markup, not words of the text. Left in, they are indexed words (``meth``, ``mod``,
``attr`` and ``func`` stand in Django's docs thousands of times), which a search box takes for
the word being typed instead of the word they abbreviate (adr/0073). Blanking keeps every
offset, so citations are unchanged; only what is indexed changes. Text without a backtick or
a target is returned unscanned.
"""

from __future__ import annotations

import re

__all__ = ["MARKUP", "without_markup"]

MARKUP = "rst"
"""What an analyzer's identity records (``markup``) when it blanks this markup."""

_NAME = r"[A-Za-z][\w+.-]*(?::[A-Za-z][\w+.-]*)*"  # a role name, domain included (py:meth)
_PASSES = (  # (what the text must hold, the markup): each pattern starts with a literal
    (":", re.compile(rf":(?:(?<![\w`]:){_NAME}:(?=`)|(?<=`:){_NAME}:(?![\w`]))")),  # roles
    (".. _", re.compile(r"(?m:^[ \t]*\.\. _(?:`[^`\n]*`|[^`:\n]+):(?:[ \t][^\n]*)?$)")),  # targets
    ("<", re.compile(r"<(?<=\s<)[^<>`\n]+>(?=`)")),  # `text <URI>`_, :doc:`text <path>`
    ("`_", re.compile(r"_(?<=`_)_?(?!\w)")),  # the underscores of `reference`_, `anonymous`__
)


def without_markup(text: str) -> str:
    """``text`` with its reST role names, hyperlink targets, embedded URIs and reference
    underscores blanked (each character a space, so every offset stays where it was)."""
    if "`" not in text and ".. _" not in text:  # what every piece of this markup holds
        return text
    for trigger, pattern in _PASSES:
        if trigger in text:
            text = pattern.sub(_blank, text)
    return text


def _blank(found: re.Match[str]) -> str:
    return " " * (found.end() - found.start())
