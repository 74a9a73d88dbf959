"""Code-point offsets to 1-based line numbers, in O(log lines) per lookup."""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = ["LINE_BREAK", "LineIndex"]

LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""A line break as editors count them: ``\\r\\n`` (once), a lone ``\\r`` or ``\\n``."""


class LineIndex:
    """Line starts of a text; a line ends after ``\\n``, ``\\r\\n`` or a lone ``\\r``."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
        if "\r" in text:
            starts.extend(found.end() for found in LINE_BREAK.finditer(text))
        else:  # the common case, without a regex
            find = text.find
            pos = find("\n")
            while pos != -1:
                starts.append(pos + 1)
                pos = find("\n", pos + 1)
        self._starts = starts

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_of(self, offset: int) -> int:
        """The 1-based line holding the code point at ``offset``."""
        return bisect_right(self._starts, offset)

    def span(self, start: int, end: int) -> tuple[int, int]:
        """1-based first and last line of ``text[start:end]`` (an empty span sits on one line)."""
        first = self.line_of(start)
        last = self.line_of(end - 1) if end > start else first
        return first, last
