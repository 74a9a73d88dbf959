"""Whitespace-aware scanning primitives, all linear in what they look at.

Every search here runs in C (``str`` methods, or regexes whose only repetition is one greedy
run), so huge lines, huge words and huge runs of whitespace cost time in proportion to their
length, and blank lines cost no Python work at all.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

__all__ = ["Lines", "last_non_ws_end", "paragraph_bounds", "skip_ws"]

# Lines end at \n, \r\n or a lone \r, as editors count them (groundkit.lines.LINE_BREAK).
# A line holding non-whitespace: its leading whitespace (and a byte-order mark opening the
# text), then the rest up to the line break. Anchored at line starts, so a blank line is
# scanned once and then skipped.
_NONBLANK_LINE = re.compile(r"(?:\A\ufeff?+|(?<=[\r\n]))([^\S\r\n]*)(\S[^\r\n]*)")
# A blank line with the line breaks around it, and any whitespace after (single greedy runs
# only: a repeated group would be slow on a million blank lines). "\r(?!\n)" keeps the two
# halves of one \r\n from counting as two breaks.
_BREAK = r"(?:\r\n|\r(?!\n)|\n)"
_BLANK_LINES = re.compile(_BREAK + r"[^\S\r\n]*" + _BREAK + r"\s*")
_BREAKS = re.compile(_BREAK)
_WS_RUN = re.compile(r"\s*")
_TO_LAST_NON_WS = re.compile(r".*\S", re.DOTALL)


class Lines:
    """The lines of a text (split at line breaks) that are not all whitespace, as parallel lists.

    For line ``i``: ``body[i]`` is its text stripped of whitespace, found at
    ``first[i]:last[i]`` in the document; ``indent[i]`` its leading whitespace in columns
    (tab = 4); ``after_blank[i]`` whether a blank line precedes it. Parallel lists of ints and
    strings (rather than one object per line) keep a million-line file cheap.
    """

    __slots__ = ("after_blank", "body", "first", "indent", "last")

    def __init__(self, text: str) -> None:
        self.first: list[int] = []
        self.last: list[int] = []
        self.indent: list[int] = []
        self.body: list[str] = []
        self.after_blank: list[bool] = []
        previous_end = -1
        for found in _NONBLANK_LINE.finditer(text):
            leading, rest = found.groups()
            first = found.start(2)
            body = rest.rstrip()
            self.first.append(first)
            self.last.append(first + len(body))
            self.indent.append(len(leading) + 3 * leading.count("\t") if leading else 0)
            self.body.append(body)
            # A blank line lies between: two or more line breaks in the whitespace between.
            gap = found.start(1) - previous_end
            self.after_blank.append(
                previous_end >= 0
                and gap > 1
                and len(_BREAKS.findall(text, previous_end, found.start(1))) > 1
            )
            previous_end = found.end()

    def __len__(self) -> int:
        return len(self.body)


def paragraph_bounds(text: str) -> Iterator[tuple[int, int]]:
    """Trimmed ``(start, end)`` of each blank-line separated paragraph of ``text``, in order."""
    pos = 0
    for gap in _BLANK_LINES.finditer(text):
        start = skip_ws(text, pos, gap.start())
        if start < gap.start():
            yield start, last_non_ws_end(text, start, gap.start())
        pos = gap.end()
    start = skip_ws(text, pos, len(text))
    if start < len(text):
        yield start, last_non_ws_end(text, start, len(text))


def skip_ws(text: str, pos: int, end: int) -> int:
    """The first index in ``[pos, end)`` that is not whitespace, or ``end``."""
    found = _WS_RUN.match(text, pos, end)
    return end if found is None else found.end()


def last_non_ws_end(text: str, start: int, end: int) -> int:
    """One past the last non-whitespace index in ``[start, end)``, or ``start`` if none."""
    found = _TO_LAST_NON_WS.match(text, start, end)
    return start if found is None else found.end()
