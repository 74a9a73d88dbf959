"""reStructuredText blocks: section titles, explicit markup (directives), literal blocks, lists.

Read line by line like ``blocks.markdown_blocks``: a title is a text line with an underline
(optionally an overline) of one repeated punctuation character, its level fixed by the order in
which adornment styles first appear, as docutils does. An explicit markup block (``.. name::``,
comments, targets) runs over every following line indented deeper than its ``..``, so a
``code-block`` directive stays whole with its code (role ``code``). A paragraph ending in ``::``
is followed by a literal block (the lines indented under it, role ``code``). Bullet and
enumerated list items run over their indented continuation lines. Anything else is a
blank-line separated paragraph. Blocks never overlap and cover every non-whitespace character.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from groundkit.chunking.blocks import HEADING_CHARS, Block
from groundkit.chunking.scan import Lines

__all__ = ["CODE_DIRECTIVES", "looks_like_rst", "rst_blocks"]

CODE_DIRECTIVES = frozenset(
    {"code", "code-block", "sourcecode", "literalinclude", "doctest", "console", "highlight"}
)
_ADORNMENT = frozenset("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~")
_DIRECTIVE = re.compile(r"\.\.\s+([A-Za-z0-9_:+-]+)::")
_LIST_ITEM = re.compile(r"(?:[-*+\u2022]|#\.|[0-9]{1,9}[.)]|\([0-9a-zA-Z#]{1,9}\)|[a-zA-Z#][.)])\s")
# A text line directly underlined by 4 or more of one punctuation character (linear: the
# backreference repeats one character, with no nested repetition).
_TITLE = re.compile(r"^[^\S\n]*\w[^\n]*\n([=\-~^\"'`#*+:._!$%&,;<>?@|/])\1{3,}[^\S\n]*$", re.M)
_LABEL_RUN = 8  # bodiless markup lines (labels, index entries) looked past to find a title
_MARKUP = re.compile(r"^\.\. [A-Za-z0-9_:+-]+::", re.M)
_UNDERLINE_START = re.compile(r"\n([=\-~^\"'`#*+:._!$%&,;<>?@|/])\1{3}")
"""What every ``_TITLE`` match holds: found by a scan for newlines, six times faster than
``_TITLE``'s try at every line start, so a text without it skips ``_TITLE``."""


def looks_like_rst(text: str) -> bool:
    """True when ``text`` has an underlined section title or a directive (``.. name::``).

    How a ``.txt`` file is recognised as reST (Django, Python and many projects write their
    reST documentation as ``.txt``).
    """
    titled = _UNDERLINE_START.search(text) is not None and _TITLE.search(text) is not None
    return titled or (".. " in text and _MARKUP.search(text) is not None)


def rst_blocks(text: str) -> Iterator[Block]:
    """The blocks of a reST document, each with the section title path it sits under."""
    return _RstParser(Lines(text)).blocks()


def _adornment(body: str) -> bool:
    return len(body) >= 2 and body[0] in _ADORNMENT and not body.strip(body[0])


class _RstParser:
    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.styles: list[tuple[str, bool]] = []  # adornment styles in order of appearance
        self.headings: list[tuple[int, str]] = []
        self.path: tuple[str, ...] = ()

    def blocks(self) -> Iterator[Block]:
        lines = self.lines
        i, count = 0, len(lines)
        while i < count:
            body = lines.body[i]
            role = "paragraph"
            title = self._title_at(i)
            if title is not None:
                end, level_key, text = title
                self._enter(level_key, text)
                role = "heading"
            elif body.startswith("..") and (len(body) == 2 or body[2].isspace()):
                end = self._indented_end(i, lines.indent[i])
                found = _DIRECTIVE.match(body)
                if found is not None and found.group(1).lower() in CODE_DIRECTIVES:
                    role = "code"
            elif _LIST_ITEM.match(body + " ") is not None and not _adornment(body):
                end, role = self._indented_end(i, lines.indent[i]), "list"
            else:
                end = self._paragraph_end(i)
                literal = end
                if lines.body[end - 1].endswith("::"):
                    literal = self._indented_end(end - 1, lines.indent[i])
                if literal > end:  # the lines indented under "::" stay with their paragraph
                    end = literal
                    role = "code" if body == "::" else "paragraph"
            if role != "heading" and self._bodiless_markup(i, end):
                title = self._title_after_markup(end)
                if title is not None:  # labels (.. _x:, .. setting:: X) name the title after them
                    end, style, text = title
                    self._enter(style, text)
                    role = "heading"
            yield Block(lines.first[i], lines.last[end - 1], role, self.path)
            i = end

    def _bodiless_markup(self, i: int, end: int) -> bool:
        """Whether lines ``i:end`` are one unindented explicit markup line with no body."""
        body = self.lines.body[i]
        return end == i + 1 and not self.lines.indent[i] and body.startswith(".. ")

    def _title_after_markup(self, j: int) -> tuple[int, tuple[str, bool], str] | None:
        """The title at ``j`` or after at most ``_LABEL_RUN`` more bodiless markup lines, else
        None (bounded, so a long run of such lines stays linear)."""
        count = min(len(self.lines), j + _LABEL_RUN + 1)
        while j < count:
            title = self._title_at(j)
            if title is not None:
                return title
            if not self._bodiless_markup(j, self._indented_end(j, self.lines.indent[j])):
                return None
            j += 1
        return None

    def _title_at(self, i: int) -> tuple[int, tuple[str, bool], str] | None:
        """``(index after, style, text)`` when a section title starts at line ``i``."""
        lines = self.lines
        count = len(lines)
        body = lines.body[i]
        if lines.indent[i]:
            return None
        if (
            _adornment(body)
            and i + 2 < count
            and not lines.after_blank[i + 1]
            and not lines.after_blank[i + 2]
            and lines.body[i + 2] == body
            and not _adornment(lines.body[i + 1])
        ):
            return i + 3, (body[0], True), lines.body[i + 1]
        if (
            not _adornment(body)
            and i + 1 < count
            and not lines.after_blank[i + 1]
            and lines.indent[i + 1] == 0
            and _adornment(lines.body[i + 1])
            and len(lines.body[i + 1]) >= min(len(body), 4)
        ):
            return i + 2, (lines.body[i + 1][0], False), body
        return None

    def _enter(self, style: tuple[str, bool], title: str) -> None:
        if style not in self.styles:
            self.styles.append(style)
        level = self.styles.index(style) + 1
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, " ".join(title[: HEADING_CHARS * 4].split())[:HEADING_CHARS]))
        self.path = tuple(text for _, text in self.headings)

    def _indented_end(self, i: int, indent: int) -> int:
        """The index after line ``i`` and the lines after it indented deeper than ``indent``."""
        lines = self.lines
        j, count = i + 1, len(lines)
        while j < count and lines.indent[j] > indent:
            j += 1
        return j

    def _paragraph_end(self, i: int) -> int:
        """The index after a paragraph: it runs to a blank line or a less indented line."""
        lines = self.lines
        j, count = i + 1, len(lines)
        while j < count and not lines.after_blank[j] and lines.indent[j] >= lines.indent[i]:
            if lines.indent[j] == lines.indent[i] and _LIST_ITEM.match(lines.body[j] + " "):
                break
            j += 1
        return j
