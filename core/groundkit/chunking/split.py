"""Cutting one oversized span into pieces of at most ``target`` code points that overlap.

Each piece ends at the last sentence boundary in its window (if that keeps it at least half
full), else at the last whitespace, else hard at ``target``. The next piece starts about
``overlap`` code points before the previous one ended, moved to a word start when one is near,
and always after the previous piece's start, so every step advances. Every search is bounded by
one window, so the work is linear in the span's length.
"""

from __future__ import annotations

import re

from groundkit.chunking.scan import last_non_ws_end, skip_ws

__all__ = ["split_span"]

# The last sentence end in a window: . ! ? before whitespace, or the CJK full stop and
# fullwidth ! ? (U+3002, U+FF01, U+FF1F) anywhere, as CJK text puts no space after them. The
# lookaheads keep the cut inside the window, whose end the caller passes as ``endpos - 1``.
# One greedy ``.*`` and no nesting: backtracking is linear in the window.
_LAST_SENTENCE_END = re.compile(r".*(?:[.!?](?=\s)|[\u3002\uff01\uff1f](?=.))", re.DOTALL)
_LAST_WS = re.compile(r".*\s", re.DOTALL)
_WS = re.compile(r"\s")


def split_span(
    text: str, start: int, end: int, *, target: int, overlap: int
) -> list[tuple[int, int]]:
    """Trimmed ``(start, end)`` pieces covering the non-whitespace of ``text[start:end]``.

    ``start`` and ``end`` must already be trimmed; each piece is at most ``target`` long.
    """
    pieces: list[tuple[int, int]] = []
    pos = start
    floor = start  # cuts must land after the previous cut, so pieces never repeat
    while end - pos > target:
        window_end = pos + target
        cut = _cut(text, pos, floor, window_end, target)
        piece_end = last_non_ws_end(text, pos, cut)
        if not pieces or piece_end > pieces[-1][1]:  # else only whitespace was added: drop it
            pieces.append((pos, piece_end))
        floor = cut
        pos = skip_ws(text, _next_start(text, pos, piece_end, cut, overlap), end)
    pieces.append((pos, end))
    return pieces


def _cut(text: str, pos: int, floor: int, window_end: int, target: int) -> int:
    """Where the piece starting at ``pos`` ends: in ``(max(pos, floor), window_end]``."""
    floor = max(pos, floor)
    found = _LAST_SENTENCE_END.match(text, max(pos + target // 2 - 1, floor), window_end + 1)
    if found is not None:
        return found.end()
    found = _LAST_WS.match(text, floor + 1, window_end + 1)
    if found is not None:
        return found.end() - 1
    return window_end


def _next_start(text: str, pos: int, piece_end: int, cut: int, overlap: int) -> int:
    """About ``overlap`` before ``piece_end``, at a nearby word start; after ``pos``."""
    wanted = piece_end - overlap
    if overlap == 0 or wanted <= pos:
        return cut
    if text[wanted - 1].isspace() or text[wanted].isspace():
        return wanted
    slack = max(16, overlap // 2)
    before = _LAST_WS.match(text, max(pos + 1, wanted - slack), wanted)
    if before is not None:
        return before.end()
    after = _WS.search(text, wanted, min(piece_end, wanted + slack))
    if after is not None:
        return after.end()
    return wanted
