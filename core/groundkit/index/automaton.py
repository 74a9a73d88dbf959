"""A Levenshtein automaton walked over a sorted term list: the terms within a few edits.

The sorted list is read as an implicit trie: the terms sharing a prefix form one slice, found by
bisection. The automaton's state after a prefix is one row of the optimal-string-alignment table
against the query term (and the row before it, for transpositions), banded to the cells that can
still stay within the limit. A prefix whose row exceeds the limit everywhere ends its slice; where
only a few characters can keep a row within the limit, only their slices are sought (Lucene's
"next valid string"), so a term list is never read whole (figures: adr/0046).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence

from groundkit.deadlines import check_deadline

__all__ = ["terms_within"]

_LAST_CHAR = 0x10FFFF


def terms_within(
    term: str,
    terms: Sequence[str],
    max_edits: int,
    *,
    first_changed: int | None = None,
    lo: int = 0,
    hi: int | None = None,
) -> dict[str, int]:
    """The terms of ``terms[lo:hi]`` (sorted, code-point order) within ``max_edits`` of
    ``term``, each with its distance, in the list's order; ``term`` itself excluded. Terms whose
    first character differs from ``term``'s are kept within ``first_changed`` edits only
    (default ``max_edits``)."""
    hi = len(terms) if hi is None else hi
    n, cap = len(term), max_edits + 1
    changed = max_edits if first_changed is None else min(first_changed, max_edits)
    found: dict[str, int] = {}

    def step(
        prev: list[int], before: list[int] | None, last: str, char: str, depth: int
    ) -> list[int]:
        """The row after ``prev`` (whose prefix ends in ``last``) reads ``char``, capped."""
        row = [cap] * (n + 1)
        row[0] = min(depth, cap)
        for j in range(max(1, depth - max_edits), min(n, depth + max_edits) + 1):
            here = term[j - 1]
            best = prev[j - 1] if here == char else prev[j - 1] + 1
            if prev[j] < best:  # written out: min() costs a call per cell
                best = prev[j] + 1
            if row[j - 1] < best:
                best = row[j - 1] + 1
            if (
                before is not None
                and j > 1
                and char == term[j - 2]
                and last == here
                and before[j - 2] < best
            ):
                best = before[j - 2] + 1
            row[j] = best if best < cap else cap
        return row

    # (slice of terms sharing the prefix, the prefix, its row, the row before it, its limit)
    stack: list[tuple[int, int, str, list[int], list[int] | None, int]] = []
    if lo < hi:
        stack.append((lo, hi, "", [min(j, cap) for j in range(n + 1)], None, max_edits))
    popped = 0
    while stack:
        popped += 1
        if not popped & 1023:
            check_deadline()
        start, end, prefix, prev, before, bound = stack.pop()
        depth, last = len(prefix), prefix[-1:]
        if len(terms[start]) == depth:  # the prefix is itself a term: it sorts first
            if 0 < prev[n] <= (bound if depth or not term else changed):
                found[prefix] = prev[n]
            while start < end and len(terms[start]) == depth:  # and any repeat of it
                start += 1
        children: list[tuple[int, int, str, list[int], list[int] | None, int]] = []
        if min(prev) < bound or depth == 0:  # any character keeps the row within the limit
            at = start
            while at < end:
                char = terms[at][depth]
                after = _after(terms, prefix, char, at, end)
                limit = bound if depth or char == term[:1] else changed
                row = step(prev, before, last, char, depth + 1)
                if min(row) <= limit:
                    children.append((at, after, prefix + char, row, prev, limit))
                at = after
        elif start < end:  # only characters matching the query term where the row is at the limit
            chars = {term[j] for j in range(n) if prev[j] <= bound}
            if before is not None:
                chars.update(
                    term[j - 2]
                    for j in range(2, n + 1)
                    if before[j - 2] < bound and last == term[j - 1]
                )
            for char in sorted(chars):
                at = bisect_left(terms, prefix + char, start, end)
                if at < end and terms[at].startswith(prefix + char):
                    after = _after(terms, prefix, char, at, end)
                    row = step(prev, before, last, char, depth + 1)
                    if min(row) <= bound:
                        children.append((at, after, prefix + char, row, prev, bound))
        stack.extend(reversed(children))
    return found


def _after(terms: Sequence[str], prefix: str, char: str, at: int, end: int) -> int:
    """The end of the slice of ``terms[at:end]`` that begins with ``prefix + char``."""
    code = ord(char)
    if code == _LAST_CHAR:
        return end
    return bisect_left(terms, prefix + chr(code + 1), at + 1, end)
