"""The lexicon: a read view's indexed terms, for prefix completion and typo-tolerant lookup.

Completions of a prefix are read from the store by range (a static site fetches only the term
blocks the prefix falls in). Terms one edit away come from a symmetric-delete table (SymSpell)
built on first use: every term under each of its one-character deletions, looked up by the
query term and its deletions, each checked by its optimal-string-alignment distance. Terms two
edits away are those a Levenshtein automaton finds in the slice of the sorted term list that keeps
the query term's first letter (a typo rarely hits the first letter; adr/0046). The surface words
of the chunks' text (before stemming; identifiers such as ``update_or_create`` among them) are
searched the same way, by the automaton, for typos measured on words rather than stems
(``dfsplayng`` -> ``displaying``; adr/0061, adr/0082).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterator

from groundkit.analysis.tokenize import surface_words
from groundkit.index.automaton import terms_within
from groundkit.store.protocols import CollectionReader

__all__ = ["Lexicon", "edit_distance"]


class Lexicon:
    """The indexed terms of one read view, read on first use and kept; ``readable``: the
    analyzer's, what a chunk's text reads as before its words are taken (``Analyzer.readable``),
    so the surface words are those its terms came from."""

    def __init__(self, reader: CollectionReader, readable: Callable[[str], str]) -> None:
        self._reader = reader
        self._readable = readable
        self._sorted: list[str] | None = None
        self._terms: frozenset[str] | None = None
        self._deletes: dict[str, list[str]] | None = None
        self._words: list[str] | None = None
        self._kinds: tuple[list[str], list[str]] | None = None

    def completions(self, prefix: str) -> list[str]:
        """Indexed terms starting with ``prefix`` (itself included), in code-point order."""
        return self._reader.indexed_terms(prefix)

    def __contains__(self, term: object) -> bool:
        return term in self._all()

    def _all(self) -> frozenset[str]:
        if self._terms is None:
            self._terms = frozenset(self._in_order())
        return self._terms

    def _in_order(self) -> list[str]:
        if self._sorted is None:
            self._sorted = self._reader.indexed_terms("")
        return self._sorted

    def words(self) -> list[str]:
        """The surface words of the chunks' text, in code-point order: the store's list where
        it keeps one (a static site), else read from every chunk once and kept."""
        if self._words is None:
            stored = self._reader.indexed_words()
            if stored is None:
                readable = self._readable
                stored = surface_words(readable(chunk.text) for chunk in self._reader.iter_chunks())
            self._words = stored
        return self._words

    def words_begun(self, prefix: str) -> list[str]:
        """The surface words that start with ``prefix`` (itself included), in code-point
        order."""
        ordered = self.words()
        lo = bisect_left(ordered, prefix)
        return ordered[lo : bisect_left(ordered, prefix + "\U0010ffff", lo)]

    def is_word(self, word: str) -> bool:
        """Whether ``word`` is one of the surface words."""
        ordered = self.words()
        at = bisect_left(ordered, word)
        return at < len(ordered) and ordered[at] == word

    def warm(self) -> None:
        """Build what typo tolerance reads on first use (the term table, the words), so that
        a service's first fuzzy request does not pay for it."""
        self.near("", 1)
        self._of_kind(False)

    def near_words(self, word: str, max_edits: int) -> dict[str, int]:
        """Surface words within ``max_edits`` of ``word`` that keep its first letter, each with
        its distance, in code-point order; ``word`` itself excluded. An identifier (a word
        holding ``_``) is measured against the identifiers, any other word against the words
        of letters alone (adr/0082)."""
        if not word:
            return {}
        ordered = self._of_kind("_" in word)
        lo = bisect_left(ordered, word[0])
        hi = bisect_left(ordered, chr(ord(word[0]) + 1), lo) if word[0] < "\U0010ffff" else None
        return terms_within(word, ordered, max_edits, lo=lo, hi=hi)

    def _of_kind(self, identifiers: bool) -> list[str]:
        """The surface words that are identifiers, or those that are not, in code-point order."""
        if self._kinds is None:
            words = self.words()
            self._kinds = ([w for w in words if "_" not in w], [w for w in words if "_" in w])
        return self._kinds[identifiers]

    def near(self, term: str, max_edits: int) -> dict[str, int]:
        """Indexed terms within ``max_edits`` (1 or 2) of ``term``, each with its distance, in
        code-point order; ``term`` itself excluded. Every term one edit away; those two away
        that keep the first letter."""
        if self._deletes is None:
            table: dict[str, list[str]] = {}
            for known in self._in_order():
                for variant in set(_deletions(known)):
                    table.setdefault(variant, []).append(known)
            self._deletes = table
        terms, table = self._all(), self._deletes
        candidates: set[str] = set()
        for probe in (term, *_deletions(term)):
            if probe in terms:
                candidates.add(probe)
            candidates.update(table.get(probe, ()))
        candidates.discard(term)
        found = {known: 1 for known in candidates if edit_distance(term, known, 1) == 1}
        if max_edits > 1 and term:
            ordered = self._in_order()
            lo = bisect_left(ordered, term[0])
            hi = bisect_left(ordered, chr(ord(term[0]) + 1), lo) if term[0] < "\U0010ffff" else None
            found.update(terms_within(term, ordered, max_edits, lo=lo, hi=hi))
        return dict(sorted(found.items()))


def _deletions(word: str) -> Iterator[str]:
    return (word[:i] + word[i + 1 :] for i in range(len(word)))


def edit_distance(a: str, b: str, limit: int) -> int:
    """The optimal-string-alignment distance of ``a`` and ``b`` (insertions, deletions,
    substitutions and adjacent transpositions), or ``limit + 1`` once it must exceed ``limit``."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    before: list[int] = []
    previous = list(range(len(b) + 1))
    for i, char in enumerate(a, start=1):
        current = [i] + [0] * len(b)
        for j, other in enumerate(b, start=1):
            cost = 0 if char == other else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and char == b[j - 2] and a[i - 2] == other:
                best = min(best, before[j - 2] + 1)
            current[j] = best
        if min(current) > limit:
            return limit + 1
        before, previous = previous, current
    return min(previous[-1], limit + 1)
