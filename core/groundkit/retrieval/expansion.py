"""Prefix and typo expansion of a query's words into indexed terms, before BM25 scores them.

``prefix``: the last word, when its own term is absent or rare, also stands for the indexed
terms it begins (as a visitor types), or the stem being typed; where none begins with it, the
longest shorter prefix that has completions is used, down to half the word (Pagefind's
backtracking), unless ``fuzzy`` is on and finds the word's correction, which then stands.
``fuzzy``: a word whose term is absent or rare also stands for the indexed terms within one
edit (two from nine letters: Meilisearch's rule), found both on its term and on the word itself
(``paginaton`` -> ``pagination`` -> ``pagin``).
Each word's expansions are scored as one blended term at a lower weight than an exact match;
the figures and the choice against Lucene's alternatives are in adr/0046.
"""

from __future__ import annotations

import string
from collections.abc import Callable
from dataclasses import dataclass
from itertools import chain

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.tokenize import tokens
from groundkit.index.bm25 import BM25Index
from groundkit.index.lexicon import Lexicon
from groundkit.index.postings import blend_members

__all__ = [
    "FUZZY_WEIGHT",
    "PREFIX_WEIGHT",
    "ExpandedQuery",
    "expand_query",
    "typo_budget",
]

PREFIX_WEIGHT = 0.75
"""A completion's score relative to the exact term's (0.5 and 1.0 measured: adr/0046)."""
FUZZY_WEIGHT = 0.75
"""A near term's score relative to the exact term's (0.5 and 1.0 measured: adr/0046)."""
MIN_PREFIX = 3
"""A last word shorter than this is not completed (one or two letters match too much)."""
PREFIX_LIMIT = 50
"""Completions kept per word, shortest first (closest to what was typed)."""
FUZZY_LIMIT = 10
"""Near terms kept per word, fewest edits first, then most frequent."""
RARE_DF = 2
"""A word's term held by at most this many chunks counts as rare: near terms may join it."""
RARE_RATIO = 10
"""...but only those held by more than this many times as many chunks."""


def typo_budget(word: str) -> int:
    """Edits tolerated in ``word``: none under 5 letters, 1 under 9, else 2 (Meilisearch)."""
    return 0 if len(word) < 5 else 1 if len(word) < 9 else 2


@dataclass(frozen=True, slots=True)
class ExpandedQuery:
    """The terms BM25 scores (blended keys included), the indexed terms each expanded word
    stands for (for highlights and the trace), by kind and word."""

    terms: list[str]
    prefix: dict[str, list[str]]
    fuzzy: dict[str, list[str]]

    @property
    def matched_terms(self) -> set[str]:
        """The indexed terms a result's words may match: exact and expanded."""
        found = {term for term in self.terms if blend_members(term) is None}
        for expanded in (*self.prefix.values(), *self.fuzzy.values()):
            found.update(expanded)
        return found

    def trace(self) -> dict[str, dict[str, list[str]]] | None:
        out = {kind: words for kind, words in (("prefix", self.prefix), ("fuzzy", self.fuzzy))}
        return {kind: words for kind, words in out.items() if words} or None


def expand_query(
    query: str,
    analyzer: Analyzer,
    lexicon: Lexicon,
    index: BM25Index,
    *,
    prefix: bool,
    fuzzy: bool,
) -> ExpandedQuery:
    """``analyzer.terms(query)`` plus a blended term for each word expanded (a last word
    completed by ``prefix`` is not also corrected by ``fuzzy``; one that begins no indexed
    word is corrected, where ``fuzzy`` can, instead of completed by a shorter prefix)."""
    terms = analyzer.terms(query)
    out = ExpandedQuery(terms, {}, {})
    words = tokens(query)
    if prefix and words and len(words[-1]) >= MIN_PREFIX:
        completed, begun = _completions(words[-1], analyzer, lexicon, index.df)
        # A last word that begins no indexed word is a typo more likely than a word being
        # typed: its correction (middlware -> middleware) beats a shorter prefix (middl).
        typo = bool(completed) and not begun and fuzzy
        typo = typo and bool(_near_terms(words[-1], analyzer, lexicon, index.df))
        if completed and not typo:
            out.prefix[words[-1]] = completed
            terms.append(index.blend(completed, PREFIX_WEIGHT))
    if fuzzy:
        for word in dict.fromkeys(words):
            near = [] if word in out.prefix else _near_terms(word, analyzer, lexicon, index.df)
            if near:
                out.fuzzy[word] = near
                terms.append(index.blend(near, FUZZY_WEIGHT))
    return out


def _completions(
    word: str, analyzer: Analyzer, lexicon: Lexicon, df: Callable[[str], int]
) -> tuple[list[str], bool]:
    """Indexed terms the word (or its term) begins, when its own terms are absent or rare: a
    complete word is left alone. Completions that are plain words (letters only) when there
    are any; else identifiers (``paginator.count``) and the longest indexed term the word
    begins with (the stem being typed: ``paginat`` -> ``pagin``); where there is none at all,
    the completions of the longest shorter prefix that has some, down to half the word. And
    whether the word itself begins an indexed term (False: what came is a fallback)."""
    own = analyzer.terms(word)
    if max(map(df, own), default=0) > RARE_DF:
        return [], True
    shortest = max(MIN_PREFIX, -(-len(word) // 2))
    heads = [space + word for space in analyzer.namespaces] + own
    found = set(chain.from_iterable(lexicon.completions(head) for head in heads))
    begun = bool(found - set(own))
    plain = {term for term in found - set(own) if _plain(term, analyzer)}
    if plain:
        found = plain
    else:
        for length in range(len(word) - 1, shortest - 1, -1):
            stems = [space + word[:length] for space in analyzer.namespaces]
            held = [stem for stem in stems if df(stem) > 0]
            if held:
                found.update(held)
                break
    for length in range(len(word) - 1, shortest - 1, -1):
        if found - set(own):
            break
        heads = [space + word[:length] for space in analyzer.namespaces]
        found.update(chain.from_iterable(lexicon.completions(head) for head in heads))
    return sorted(found - set(own), key=lambda term: (len(term), term))[:PREFIX_LIMIT], begun


def _plain(term: str, analyzer: Analyzer) -> bool:
    """Whether a term is a word of letters (not an identifier such as ``paginator.count``)."""
    return term.removeprefix(_space(term, analyzer)).isalpha()


def _near_terms(
    word: str, analyzer: Analyzer, lexicon: Lexicon, df: Callable[[str], int]
) -> list[str]:
    """Indexed terms within the word's typo budget, when its own terms are absent or rare."""
    budget = typo_budget(word)
    own = analyzer.terms(word)
    if not budget or not own:
        return []
    held = max(df(term) for term in own)
    if held > RARE_DF:
        return []
    found: dict[str, int] = {}
    for term in own:
        space = _space(term, analyzer)
        for candidate, edits in lexicon.near(term, budget).items():
            if candidate.startswith(space):
                found[candidate] = min(edits, found.get(candidate, edits))
    for variant in _single_edits(word):  # the typo may change the stem: paginaton -> pagin
        for term in analyzer.terms(variant):
            if term in lexicon and term not in own:
                found[term] = min(1, found.get(term, 1))
    frequent = {term: edits for term, edits in found.items() if df(term) > RARE_RATIO * held}
    ranked = sorted(frequent, key=lambda term: (frequent[term], -df(term), term))
    return ranked[:FUZZY_LIMIT]


def _space(term: str, analyzer: Analyzer) -> str:
    """The namespace a term carries (``de:`` in a multilingual collection), else ""."""
    return next((space for space in analyzer.namespaces if space and term.startswith(space)), "")


def _single_edits(word: str) -> set[str]:
    """Every string one deletion, transposition, substitution or insertion away (Norvig)."""
    letters = sorted(set(string.ascii_lowercase) | set(word))
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    edits = {left + right[1:] for left, right in splits if right}
    edits |= {left + right[1] + right[0] + right[2:] for left, right in splits if len(right) > 1}
    edits |= {left + c + right[1:] for left, right in splits if right for c in letters}
    edits |= {left + c + right for left, right in splits for c in letters}
    edits.discard(word)
    return edits
