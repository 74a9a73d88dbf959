"""Prefix and typo expansion of a query's words into indexed terms, before BM25 scores them.

``prefix``: the last word also stands for the indexed terms it begins (as a visitor types),
even when it is a word itself (``comma`` -> ``command``): the exact term keeps its full weight.
A word that is no indexed term may be the stem being typed; where no term begins with it, the
longest shorter prefix that has completions is used, down to half the word (Pagefind's
backtracking), unless ``fuzzy`` is on and finds the word's correction, which then stands.
``fuzzy``: a word whose term is absent or rare also stands for the indexed terms within one
edit (two from nine letters: Meilisearch's rule), measured on its term against the indexed
terms and on the word itself against the surface words of the text (``dfsplayng`` ->
``displaying`` -> ``displai``).
Each word's expansions are scored as one blended term at a lower weight than an exact match.
The work is bounded: letters per word, words per query and terms per expansion have limits,
past which the query is refused (``InvalidQueryError``), and the deadline is checked per word.
The figures and the choices are in adr/0046 and adr/0061.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from itertools import chain

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.question_words import content_terms
from groundkit.analysis.tokenize import MAX_SURFACE_WORD, tokens
from groundkit.deadlines import check_deadline
from groundkit.errors import InvalidQueryError
from groundkit.index.bm25 import BM25Index
from groundkit.index.lexicon import Lexicon
from groundkit.index.postings import blend_members

__all__ = [
    "FUZZY_WEIGHT",
    "MAX_EXPANDED_TERMS",
    "MAX_EXPANDED_WORDS",
    "MAX_WORD_LETTERS",
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
MAX_WORD_LETTERS = MAX_SURFACE_WORD
"""A word expanded (the last with ``prefix``, any with ``fuzzy``) may have at most this many
characters: no indexed surface word is longer, and the automaton's work grows with it."""
MAX_EXPANDED_WORDS = 64
"""With ``fuzzy``, a query may have at most this many distinct words."""
MAX_EXPANDED_TERMS = PREFIX_LIMIT + FUZZY_LIMIT * MAX_EXPANDED_WORDS
"""The most indexed terms one query's expansions can add (what BM25 then scores)."""


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

    def without(self, framing: frozenset[str]) -> ExpandedQuery:
        """This query with ``content_terms``' rule applied to its analyzed terms (not to its
        expansions): a question's framing terms left out unless they are all it has."""
        if not framing:
            return self
        plain = [term for term in self.terms if blend_members(term) is None]
        blended = [term for term in self.terms if blend_members(term) is not None]
        return replace(self, terms=[*content_terms(plain, framing), *blended])

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
    word is corrected, where ``fuzzy`` can, instead of completed by a shorter prefix).
    ``InvalidQueryError`` past the limits (``check_expansion``)."""
    terms = analyzer.terms(query)
    out = ExpandedQuery(terms, {}, {})
    words = tokens(query)
    check_expansion(words, prefix=prefix, fuzzy=fuzzy)
    if prefix and words and len(words[-1]) >= MIN_PREFIX:
        check_deadline()
        completed, begun = _completions(words[-1], analyzer, lexicon, index.df)
        # A last word that begins no indexed word is a typo more likely than a word being
        # typed: its correction (middlware -> middleware) beats a shorter prefix (middl).
        typo = bool(completed) and not begun and fuzzy
        typo = typo and bool(_near_terms(words[-1], analyzer, lexicon, index.df))
        if completed and not typo:
            out.prefix[words[-1]] = completed
            weight = _completion_weight(analyzer.terms(words[-1]), completed, index)
            terms.append(index.blend(completed, weight))
    if fuzzy:
        for word in dict.fromkeys(words):
            check_deadline()
            near = [] if word in out.prefix else _near_terms(word, analyzer, lexicon, index.df)
            if near:
                out.fuzzy[word] = near
                terms.append(index.blend(near, FUZZY_WEIGHT))
    return out


def _completion_weight(own: list[str], completed: list[str], index: BM25Index) -> float:
    """``PREFIX_WEIGHT``; for a word that is itself indexed, scaled so that the completions'
    idf is at most ``PREFIX_WEIGHT`` times the exact word's: the exact word ranks first."""
    held = [index.df(term) for term in own if index.df(term) > 0]
    if not held:
        return PREFIX_WEIGHT
    exact = index.idf(max(held))
    blended = index.idf(max(index.df(term) for term in completed))
    return PREFIX_WEIGHT if blended <= exact else PREFIX_WEIGHT * (exact / blended)


def check_expansion(words: list[str], *, prefix: bool, fuzzy: bool) -> None:
    """Refuse, before any work, a query whose expansion the limits do not allow: a word
    expanded longer than ``MAX_WORD_LETTERS``, more than ``MAX_EXPANDED_WORDS`` words with
    ``fuzzy``."""
    expanded = list(dict.fromkeys(words)) if fuzzy else words[-1:] if prefix else []
    if fuzzy and len(expanded) > MAX_EXPANDED_WORDS:
        raise InvalidQueryError(
            f"a typo-tolerant (fuzzy) query may have at most {MAX_EXPANDED_WORDS} distinct "
            f"words, this one has {len(expanded)}: shorten it or search without fuzzy",
            subject="query",
        )
    long = next((word for word in expanded if len(word) > MAX_WORD_LETTERS), None)
    if long is not None:
        option = "fuzzy" if fuzzy else "prefix"
        raise InvalidQueryError(
            f"a word of {len(long)} characters is too long for {option} search (at most "
            f"{MAX_WORD_LETTERS}): shorten it or search without {option}",
            subject="query",
        )


def _completions(
    word: str, analyzer: Analyzer, lexicon: Lexicon, df: Callable[[str], int]
) -> tuple[list[str], bool]:
    """Indexed terms the word (or its term) begins, other than its own. Completions that
    are plain words (letters only) when there are any; else, for a word that is no indexed
    term, identifiers (``paginator.count``) and the longest indexed term the word begins with
    (the stem being typed: ``paginat`` -> ``pagin``); where there is none at all, the
    completions of the longest shorter prefix that has some, down to half the word. And whether
    the word itself begins an indexed term (False: what came is a fallback)."""
    own = analyzer.terms(word)
    if max(map(df, own), default=0) > 0:  # a word itself: it completes, nothing falls back
        heads = [space + word for space in analyzer.namespaces] + own
        found = set(chain.from_iterable(lexicon.completions(head) for head in heads))
        found -= set(own)
        plain = {term for term in found if _plain(term, analyzer)}
        return sorted(plain or found, key=lambda term: (len(term), term))[:PREFIX_LIMIT], True
    shortest = max(MIN_PREFIX, -(-len(word) // 2))
    heads = [space + word for space in analyzer.namespaces] + own
    found = set(chain.from_iterable(lexicon.completions(head) for head in heads))
    # begun by the word as typed, not by its stem (muscue's stem muscu begins muscular)
    typed = chain.from_iterable(lexicon.completions(space + word) for space in analyzer.namespaces)
    begun = bool(set(typed) - set(own))
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
    # on the word too: the typo may change the stem (paginaton -> pagination -> pagin), and a
    # stem can be further from the typed word than the word it came from (dfsplayng)
    for near, edits in lexicon.near_words(word, budget).items():
        for term in analyzer.terms(near):
            if term not in own and term in lexicon:
                found[term] = min(edits, found.get(term, edits))
    frequent = {term: edits for term, edits in found.items() if df(term) > RARE_RATIO * held}
    ranked = sorted(frequent, key=lambda term: (frequent[term], -df(term), term))
    return ranked[:FUZZY_LIMIT]


def _space(term: str, analyzer: Analyzer) -> str:
    """The namespace a term carries (``de:`` in a multilingual collection), else ""."""
    return next((space for space in analyzer.namespaces if space and term.startswith(space)), "")
