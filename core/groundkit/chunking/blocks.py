"""Blocks: the trimmed structural units of a document (paragraphs, headings, code, list items).

Markdown is read line by line with a small subset of CommonMark: ATX and setext headings, fenced
code (``` or ~~~, closed by a line of the same character at least as long; unclosed, it runs
to the end), list items with their continuation lines, thematic breaks, YAML front matter and
blank-line separated paragraphs; anything else is paragraph text. Blocks come in order, never
overlap, and together cover every non-whitespace character of the document.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import NamedTuple

from groundkit.chunking.scan import Lines, paragraph_bounds

__all__ = ["HEADING_CHARS", "Block", "markdown_blocks", "text_blocks"]

HEADING_CHARS = 200
"""Longest heading text kept in a heading path; longer ones are cut (the chunk keeps it all)."""

_LIST_MARKER = re.compile(r"(?:[-*+]|[0-9]{1,9}[.)])(?:\s|$)")
_MAY_START_BLOCK = frozenset("#`~-*_+0123456789")  # first characters of non-paragraph lines
_MAY_END_PARAGRAPH = _MAY_START_BLOCK | {"="}  # ... and of setext underlines


class Block(NamedTuple):
    """``text[start:end]`` is one block; ``role`` is heading, code, list or paragraph."""

    start: int
    end: int
    role: str
    heading_path: tuple[str, ...]


def text_blocks(text: str) -> Iterator[Block]:
    """Blank-line separated paragraphs of plain text."""
    for start, end in paragraph_bounds(text):
        yield Block(start, end, "paragraph", ())


def markdown_blocks(text: str) -> Iterator[Block]:
    """The blocks of a Markdown document, each with the heading path it sits under."""
    return _MarkdownParser(Lines(text)).blocks()


class _MarkdownParser:
    """One pass over the non-blank lines; every step consumes at least one line."""

    def __init__(self, lines: Lines) -> None:
        self.lines = lines
        self.headings: list[tuple[int, str]] = []  # (level, text) from the top level down
        self.path: tuple[str, ...] = ()

    def blocks(self) -> Iterator[Block]:
        lines = self.lines
        i = self._front_matter_end()
        if i:
            yield Block(0, lines.last[i - 1], "paragraph", ())
        count = len(lines)
        while i < count:
            body = lines.body[i]
            top = lines.indent[i] <= 3
            role = "paragraph"
            if body[0] not in _MAY_START_BLOCK:
                end, setext = self._paragraph_end(i)
            elif top and _fence(body) is not None:
                end, setext = self._fence_end(i, nested=False), 0
                role = "code"
            elif top and (heading := _atx(body)) is not None:
                self._enter(*heading)
                end, setext, role = i + 1, 0, "heading"
            elif top and _thematic_break(body):
                end, setext = i + 1, 0
            elif _list_item(body):
                end, setext, role = self._list_item_end(i), 0, "list"
            else:
                end, setext = self._paragraph_end(i)
            if setext:
                self._enter(setext, self._setext_title(i, end - 1))
                role = "heading"
            yield Block(lines.first[i], lines.last[end - 1], role, self.path)
            i = end

    def _enter(self, level: int, title: str) -> None:
        """Make a heading the current one, closing those at its level and below."""
        while self.headings and self.headings[-1][0] >= level:
            self.headings.pop()
        self.headings.append((level, title))
        self.path = tuple(text for _, text in self.headings)

    def _front_matter_end(self) -> int:
        """The index after YAML front matter (``---`` first, then ``---`` or ``...``), or 0."""
        lines = self.lines
        if not len(lines) or lines.first[0] != 0 or lines.body[0] != "---":
            return 0
        for j in range(1, len(lines)):
            if lines.indent[j] == 0 and lines.body[j] in ("---", "..."):
                return j + 1
        return 0

    def _fence_end(self, i: int, *, nested: bool) -> int:
        """The index after the line closing the fence opened at line ``i`` (or after the end).

        The closing line holds only the fence character, at least as many times as the
        opening; at the top level it is indented 3 columns at most, in a list item any amount.
        """
        lines = self.lines
        opened = _fence(lines.body[i])
        assert opened is not None
        char, size = opened
        for j in range(i + 1, len(lines)):
            body = lines.body[j]
            if (
                body[0] == char
                and len(body) >= size
                and not body.strip(char)
                and (nested or lines.indent[j] <= 3)
            ):
                return j + 1
        return len(lines)

    def _list_item_end(self, i: int) -> int:
        """The index after a list item's continuation lines (nested fences included).

        The item ends at the next item, or at an unindented line that follows a blank line
        or starts a heading, fence or thematic break.
        """
        lines = self.lines
        j, count = i + 1, len(lines)
        while j < count:
            body = lines.body[j]
            if _list_item(body):
                break
            if lines.indent[j] == 0 and (
                lines.after_blank[j]
                or _atx(body) is not None
                or _fence(body) is not None
                or _thematic_break(body)
            ):
                break
            j = self._fence_end(j, nested=True) if _fence(body) is not None else j + 1
        return j

    def _paragraph_end(self, i: int) -> tuple[int, int]:
        """The index after a paragraph, and its setext heading level (0 if it is none).

        A paragraph runs to a blank line or a line that starts another block; an underline
        of ``=`` or ``-`` makes it a heading of level 1 or 2.
        """
        lines = self.lines
        j, count = i + 1, len(lines)
        while j < count and not lines.after_blank[j]:
            body = lines.body[j]
            if lines.indent[j] <= 3 and body[0] in _MAY_END_PARAGRAPH:
                level = _setext_level(body)
                if level:
                    return j + 1, level
                if _atx(body) is not None or _fence(body) is not None or _thematic_break(body):
                    break
                if _list_item(body):
                    break
            j += 1
        return j, 0

    def _setext_title(self, first: int, underline: int) -> str:
        """The text of a setext heading: its lines before the underline, joined."""
        parts = range(first, min(underline, first + HEADING_CHARS))
        return _title(" ".join(self.lines.body[k][:HEADING_CHARS] for k in parts))


def _title(raw: str) -> str:
    """Heading text with whitespace runs made single spaces, at most ``HEADING_CHARS`` long."""
    return " ".join(raw[: HEADING_CHARS * 4].split())[:HEADING_CHARS]


def _atx(body: str) -> tuple[int, str] | None:
    """``(level, text)`` of an ATX heading line (``#`` to ``######``), else None."""
    if body[0] != "#":
        return None
    level = len(body) - len(body.lstrip("#"))
    if level > 6 or (level < len(body) and not body[level].isspace()):
        return None
    title = body[level:].strip()
    closed = title.rstrip("#")
    if not closed or closed[-1].isspace():  # a closing run of # is not part of the text
        title = closed
    return level, _title(title)


def _fence(body: str) -> tuple[str, int] | None:
    """``(character, length)`` of a code fence opening line, else None."""
    char = body[0]
    if char not in "`~":
        return None
    size = len(body) - len(body.lstrip(char))
    if size < 3 or (char == "`" and "`" in body[size:]):
        return None
    return char, size


def _thematic_break(body: str) -> bool:
    """``---``, ``***`` or ``___`` (three or more, spaces allowed between)."""
    if body[0] not in "-*_" or len(body) < 3 or body[1] not in " \t-*_":
        return False
    marks = body.replace(" ", "").replace("\t", "")
    return len(marks) >= 3 and not marks.strip(body[0])


def _setext_level(body: str) -> int:
    """1 for a ``===`` underline, 2 for ``---``, else 0."""
    if body[0] == "=" and not body.strip("="):
        return 1
    if body[0] == "-" and not body.strip("-"):
        return 2
    return 0


def _list_item(body: str) -> bool:
    """A bullet (``-``, ``*``, ``+``) or ordered (``1.``, ``1)``) item, not a thematic break."""
    return (
        body[0] in "-*+0123456789"
        and _LIST_MARKER.match(body) is not None
        and not (body[0] in "-*" and _thematic_break(body))
    )
