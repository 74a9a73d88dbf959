"""Code-point offsets to 1-based line numbers, in O(log lines) per lookup."""

from __future__ import annotations

from bisect import bisect_right

__all__ = ["LineIndex"]


class LineIndex:
    """Line starts of a text; a line ends after ``\\n`` (so ``\\r\\n`` counts once)."""

    __slots__ = ("_starts",)

    def __init__(self, text: str) -> None:
        starts = [0]
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
