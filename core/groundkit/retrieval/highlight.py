"""Where a query's words are in a passage: highlight spans, and a snippet around the densest.

Highlights are found by the collection's own analyzer, so they mark exactly the words that
matched: a stemmed match marks the surface word (``running`` for the query ``runs``), a CJK
bigram its two characters, and markup that is not indexed (a reST role name, adr/0073) none.
Offsets are code points in the cited text, as everywhere else. The CLI, the browser app and
the service all cut their snippets with ``snippet``.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from dataclasses import dataclass

from groundkit.analysis.analyzer import Analyzer

__all__ = ["DEFAULT_SNIPPET_CHARS", "Snippet", "Span", "highlight_spans", "snippet"]

Span = tuple[int, int]
DEFAULT_SNIPPET_CHARS = 240


def highlight_spans(analyzer: Analyzer, terms: Collection[str], text: str) -> tuple[Span, ...]:
    """The sorted ``[start, end)`` spans of the words of ``text`` whose term is in ``terms``.

    Overlapping spans (consecutive CJK bigrams) are merged into one.
    """
    if not terms:
        return ()
    merged: list[list[int]] = []
    for start, end in analyzer.matched_spans(analyzer.readable(text), frozenset(terms)):
        if merged and start < merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return tuple((start, end) for start, end in merged)


@dataclass(frozen=True, slots=True)
class Snippet:
    """A window ``[start, end)`` of a passage; ``highlights`` are relative to the window."""

    text: str
    """The window's text."""
    start: int
    """Where the window begins in the passage (code points)."""
    end: int
    """Where it ends (exclusive)."""
    highlights: tuple[Span, ...]
    """The matched words' spans, relative to the window."""
    cut_before: bool
    """True when the passage goes on before the window."""
    cut_after: bool
    """True when the passage goes on after the window."""

    def render(self, before: str = "", after: str = "", ellipsis: str = "…") -> str:
        """The window on one line (whitespace runs as one space), highlights wrapped in
        ``before`` and ``after``, and ``ellipsis`` where the passage was cut."""
        parts: list[str] = [ellipsis] if self.cut_before else []
        at = 0
        for start, end in self.highlights:
            parts.extend((_flat(self.text[at:start]), before, _flat(self.text[start:end]), after))
            at = end
        parts.append(_flat(self.text[at:]))
        if self.cut_after:
            parts.append(ellipsis)
        return "".join(parts).strip()


def _flat(text: str) -> str:
    if not text:
        return text
    inner = " ".join(text.split())
    lead = " " if text[0].isspace() else ""
    trail = " " if text[-1].isspace() and inner else ""
    return lead + inner + trail


def snippet(
    text: str, highlights: Sequence[Span] = (), width: int = DEFAULT_SNIPPET_CHARS
) -> Snippet:
    """At most ``width`` code points of ``text``, centred on its densest run of highlights.

    The window holds as many highlights as any window of that width can (the earliest such),
    is cut at whitespace where that cuts no highlight, and starts at 0 without highlights.
    """
    if width < 1:
        raise ValueError(f"width must be >= 1, got {width!r}")
    if len(text) <= width:
        return Snippet(text, 0, len(text), tuple(highlights), False, False)
    spans = sorted(highlights)
    first = last = 0
    best = 0
    j = 0
    for i, (start, _end) in enumerate(spans):
        j = max(i, j)
        while j + 1 < len(spans) and spans[j + 1][1] - start <= width:
            j += 1
        if j - i + 1 > best:
            best, first, last = j - i + 1, i, j
    if spans:
        low, high = spans[first][0], spans[last][1]
        start = max(0, min((low + high - width) // 2, len(text) - width))
        start, end = _snap(text, start, start + width, low, high)
    else:
        start, end = _snap(text, 0, width, width, 0)
    inside = tuple(
        (max(s, start) - start, min(e, end) - start) for s, e in spans if s < end and e > start
    )
    return Snippet(text[start:end], start, end, inside, start > 0, end < len(text))


def _snap(text: str, start: int, end: int, keep_from: int, keep_to: int) -> tuple[int, int]:
    """Move ``start`` past a word it cuts, ``end`` back before one, never across the kept span."""
    if start > 0 and not text[start - 1].isspace():
        for i in range(start, min(keep_from, end)):
            if text[i].isspace():
                start = i + 1
                break
    if end < len(text) and not text[end].isspace():
        for i in range(end - 1, max(keep_to, start), -1):
            if text[i].isspace():
                end = i
                break
    return start, end
