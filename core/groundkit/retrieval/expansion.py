"""Prefix and typo expansion of a query's words into indexed terms, before BM25 scores them.

``prefix``: the last word also stands for the words of the text it begins, as a visitor types.
A word of the text (``form``, or a stopword such as ``for``) keeps its own term at full weight,
and each of its completions is added as a term of its own, weighted by how likely it is the word
meant: its share of the chunks that hold the word or one of its completions (a stopword counts
as held by every chunk). A completion that more of the chunks holding all the query's other
words hold than hold the word (``Useful meth`` -> method) joins the word in one blend at full
weight: the other words say which reading is being typed. A fragment (``obje``, no word of the
text) stands for its completions only, blended at full weight; its own stem (``obj``) is
dropped. A word that begins no word may be a typo (``fuzzy`` corrects it where it can) or a stem
typed past its end: the longest shorter prefix that has completions is used, down to half the
word (Pagefind's backtracking).
``fuzzy``: a word whose term is absent or rare also stands for the indexed terms within its typo
budget (one edit from four letters, two from eight: MiniSearch's 0.2 per letter, rounded),
measured on the word itself against the surface words of the text (``dfsplayng`` ->
``displaying`` -> ``displai``; an identifier is one, ``udpate_or_creathe`` ->
``update_or_create``) and, for one edit, on its term against the indexed terms (not a
stem of four letters from a longer word: ``ocur`` is one edit from our),
blended at a lower weight (at full weight where the collection lacks the word and one term
alone is within its budget). A rare word the text holds is corrected only to the terms the
query's other words read it as, as a complete last word is completed (``vectorial`` stays
itself beside malaria and capacity; ``seatings`` beside "creating your own" is settings).
The work is bounded: letters per word, words per query and terms per expansion have limits,
past which the query is refused (``InvalidQueryError``), and the deadline is checked per word.
The figures and the choices are in adr/0046, adr/0061, adr/0068, adr/0075, adr/0076,
adr/0078, adr/0081, adr/0082 and adr/0083.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import chain

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.question_words import content_terms
from groundkit.analysis.tokenize import MAX_SURFACE_WORD, tokens
from groundkit.deadlines import check_deadline
from groundkit.errors import InvalidQueryError
from groundkit.index.bm25 import BM25Index
from groundkit.index.lexicon import Lexicon
from groundkit.index.postings import blend_members
from groundkit.retrieval.abstention import stood_for

__all__ = [
    "FUZZY_WEIGHT",
    "MAX_EXPANDED_TERMS",
    "MAX_EXPANDED_WORDS",
    "MAX_WORD_LETTERS",
    "ExpandedQuery",
    "expand_query",
    "typo_budget",
]

FUZZY_WEIGHT = 0.75
"""A near term's score relative to the exact term's (0.5 and 1.0 measured: adr/0046)."""
MIN_PREFIX = 2
"""A last word shorter than this is not completed (one letter begins too much)."""
PREFIX_LIMIT = 50
"""Completions kept per word, shortest first (closest to what was typed)."""
FUZZY_LIMIT = 10
"""Near terms kept per word, fewest edits first, then most frequent."""
RARE_DF = 2
"""A word's term held by at most this many chunks counts as rare: near terms may join it (a
held one's only as the query's other words read it, adr/0081)."""
RARE_RATIO = 10
"""...but only those held by more than this many times as many chunks."""
SHORT_WORD = 4
"""A word this short takes one edit only where the collection lacks it, and its correction,
where more than one term is in reach, ranks the results but is no evidence: four letters the
text lacks are as often another topic's word (``rats``: rate, raw, hat) as a typo; with one
term in reach the word can only be that one (``wter``: water, adr/0076, adr/0078)."""
MAX_WORD_LETTERS = MAX_SURFACE_WORD
"""A word expanded (the last with ``prefix``, any with ``fuzzy``) may have at most this many
characters: no indexed surface word is longer, and the automaton's work grows with it."""
MAX_EXPANDED_WORDS = 64
"""With ``fuzzy``, a query may have at most this many distinct words."""
MAX_EXPANDED_TERMS = PREFIX_LIMIT + FUZZY_LIMIT * MAX_EXPANDED_WORDS
"""The most indexed terms one query's expansions can add (what BM25 then scores)."""


def typo_budget(word: str) -> int:
    """Edits tolerated in ``word``: MiniSearch's ``fuzzy: 0.2`` (0.2 edits per character,
    rounded) from four characters, at most two: one from four (four letters: ``1956`` is no
    typo of ``1966``), two from eight (adr/0068, adr/0078)."""
    size = len(word)
    if size < SHORT_WORD or (size == SHORT_WORD and not word.isalpha()):
        return 0
    return 1 if size < 8 else 2


@dataclass(frozen=True, slots=True)
class ExpandedQuery:
    """The terms BM25 scores (blended keys included), the indexed terms each expanded word
    stands for (for highlights and the trace), by kind and word, and the words whose expansion
    is a guess at another word (``guessed``: the blend that ranks it, and the terms that take
    its place in the evidence): a last word completed only by a shorter prefix (``France`` ->
    fran -> français: its own terms, which the blend replaced), a short word corrected to
    more than one term (``rats`` -> rate, raw: none, its own terms stay)."""

    terms: list[str]
    prefix: dict[str, list[str]]
    fuzzy: dict[str, list[str]]
    guessed: dict[str, tuple[str, list[str]]] = field(default_factory=dict)

    def stood_for(self, terms_of: Callable[[str], list[str]]) -> frozenset[str]:
        """``abstention.stood_for`` of this query's expansions, a guessed word left out: its
        expansion is a guess at another word (adr/0077, adr/0078)."""
        typed = {word: done for word, done in self.prefix.items() if word not in self.guessed}
        fixed = {word: near for word, near in self.fuzzy.items() if word not in self.guessed}
        return stood_for(typed, fixed, terms_of)

    def evidence_terms(self) -> list[str]:
        """``terms`` with a guessed word's own terms in place of its expansion's blend: a guess
        at another word is no evidence that the collection holds this one (adr/0077,
        adr/0078). Two equal blends give the same terms, as a multiset, whichever is
        replaced."""
        terms = list(self.terms)
        for blend, own in self.guessed.values():
            at = terms.index(blend)
            terms[at : at + 1] = own
        return terms

    @property
    def matched_terms(self) -> set[str]:
        """The indexed terms a result's words may match: exact and expanded (every expansion
        is a blend's member, and so is a word its completions joined)."""
        found: set[str] = set()
        for term in self.terms:
            blended = blend_members(term)
            found.update([term] if blended is None else blended[1])
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
    """``analyzer.terms(query)`` plus the terms each expanded word stands for (a last word
    completed by ``prefix`` is not also corrected by ``fuzzy``; one that begins no word is
    corrected, where ``fuzzy`` can, instead of completed by a shorter prefix).
    ``InvalidQueryError`` past the limits (``check_expansion``)."""
    terms = analyzer.terms(query)
    plain = list(terms)  # the query's own terms, before any expansion changes ``terms``
    out = ExpandedQuery(terms, {}, {})
    words = tokens(query)
    check_expansion(words, prefix=prefix, fuzzy=fuzzy)
    found: dict[str, list[str]] = {}

    def near(word: str) -> list[str]:  # each word's near terms, found once
        if word not in found:
            typos = _near_terms(word, analyzer, lexicon, index.df)
            own = analyzer.terms(word)
            if typos and len(own) == 1 and index.df(own[0]):  # a rare word the text holds
                typos = _read_in_context(own[0], typos, plain, index)
            found[word] = typos
        return found[word]

    if prefix and words and len(words[-1]) >= MIN_PREFIX:
        check_deadline()
        _complete(words[-1], out, analyzer, lexicon, index, near if fuzzy else None)
    if fuzzy:
        for word in dict.fromkeys(words):
            check_deadline()
            typos = [] if word in out.prefix else near(word)
            if typos:
                out.fuzzy[word] = typos
                terms.append(index.blend(typos, _typo_weight(word, typos, analyzer, index)))
                if len(word) == SHORT_WORD and len(typos) > 1:  # its own terms stay
                    out.guessed[word] = (terms[-1], [])
    return out


def _complete(
    word: str,
    out: ExpandedQuery,
    analyzer: Analyzer,
    lexicon: Lexicon,
    index: BM25Index,
    near: Callable[[str], list[str]] | None,
) -> None:
    """Add the last word's completions to ``out``, by the rules of the module's docstring
    (``near``: a word's typo corrections, where ``fuzzy`` is on)."""
    own = analyzer.terms(word)
    held = [index.df(term) for term in own]
    begun = _begun(word, analyzer, lexicon)
    if not own or lexicon.is_word(word) or (max(held) and not begun):
        # a word, or the stem of one it begins: its own term is the likeliest reading
        found = [term for term in begun if term not in own][:PREFIX_LIMIT]
        df = {term: index.df(term) for term in found}
        completed = [term for term in found if df[term] > 0]
        total = max(held, default=index.chunk_count) + sum(df.values())  # a stopword: all
        single = len(own) == 1 and own[0] in out.terms
        joined = _read_in_context(own[0], completed, out.terms, index) if single else []
        if joined:  # the other words say the word is being typed on: one reading, at 1
            at = len(out.terms) - 1 - out.terms[::-1].index(own[0])
            out.terms[at] = index.blend([own[0], *joined], 1.0)
        out.terms.extend(
            index.blend([term], df[term] / total) for term in completed if term not in joined
        )
    else:
        if not begun and near is not None and near(word):
            return  # a typo more likely than a word being typed: fuzzy corrects it
        found = begun or _shorter(word, analyzer, lexicon, index.df)
        completed = [term for term in found[:PREFIX_LIMIT] if index.df(term) > 0]
        if not completed:
            return
        for term in own:  # a fragment's stem that is no word's it begins (obje -> obj)
            del out.terms[len(out.terms) - 1 - out.terms[::-1].index(term)]
        out.terms.append(index.blend(completed, 1.0))
        if not begun:
            out.guessed[word] = (out.terms[-1], own)
    if completed:
        out.prefix[word] = completed


def _read_in_context(
    term: str, completed: list[str], terms: list[str], index: BM25Index
) -> list[str]:
    """The completions (or typo corrections) of a word (its term ``term``) that more of the
    chunks holding every other term of the query hold than hold the word: what the other
    words say the visitor is typing (``Useful meth`` -> method, ``own seatings`` -> settings).
    None without another term the collection holds, or where no chunk holds them all (a long
    query: the word keeps its reading). The other terms are all the query's analyzed terms,
    a question's framing words included."""
    if not completed:
        return []
    others = sorted((index.df(other), other) for other in set(terms) if other != term)
    held = [other for count, other in others if count]  # the rarest first: an empty context
    if not held:  # is found before a common term's keys are intersected
        return []
    context = set(index.keys(held[0]))
    for other in held[1:]:
        context.intersection_update(index.keys(other))
        if not context:
            return []
    mine = len(context.intersection(index.keys(term)))
    return [done for done in completed if len(context.intersection(index.keys(done))) > mine]


def _typo_weight(word: str, typos: list[str], analyzer: Analyzer, index: BM25Index) -> float:
    """A corrected word's weight: ``FUZZY_WEIGHT``, or 1.0 where the collection holds none of
    the word's terms and one term alone is within its typo budget: the word can only be
    that one (adr/0076)."""
    if len(typos) == 1 and not any(index.df(term) for term in analyzer.terms(word)):
        return 1.0
    return FUZZY_WEIGHT


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


def _begun(word: str, analyzer: Analyzer, lexicon: Lexicon) -> list[str]:
    """The terms of the surface words ``word`` begins (``setti`` -> settings -> ``set``) and
    the indexed terms it begins as typed (identifiers: ``paginator.count``), plain words only
    where there are any, shortest first."""
    found = set(chain.from_iterable(map(analyzer.terms, lexicon.words_begun(word))))
    found.update(chain.from_iterable(lexicon.completions(s + word) for s in analyzer.namespaces))
    plain = {term for term in found if _plain(term, analyzer)}
    return sorted(plain or found, key=lambda term: (len(term), term))


def _shorter(
    word: str, analyzer: Analyzer, lexicon: Lexicon, df: Callable[[str], int]
) -> list[str]:
    """For a word that begins no word: the longest indexed term it begins with (a stem typed
    past its end: ``configuri`` -> ``configur``), else the completions of its longest shorter
    prefix that has some, down to half the word."""
    shortest = max(MIN_PREFIX, -(-len(word) // 2))
    own = set(analyzer.terms(word))
    for length in range(len(word) - 1, shortest - 1, -1):
        stems = [space + word[:length] for space in analyzer.namespaces]
        held = [stem for stem in stems if stem not in own and df(stem) > 0]
        if held:
            return held
    for length in range(len(word) - 1, shortest - 1, -1):
        heads = [space + word[:length] for space in analyzer.namespaces]
        found = set(chain.from_iterable(lexicon.completions(head) for head in heads)) - own
        if found:
            return sorted(found, key=lambda term: (len(term), term))
    return []


def _plain(term: str, analyzer: Analyzer) -> bool:
    """Whether a term is a word of letters (not an identifier such as ``paginator.count``)."""
    return term.removeprefix(_space(term, analyzer)).isalpha()


def _near_terms(
    word: str, analyzer: Analyzer, lexicon: Lexicon, df: Callable[[str], int]
) -> list[str]:
    """Indexed terms within the word's typo budget, when its own terms are absent or rare: one
    edit on its terms (symmetric deletes; not on a stem of four letters or fewer from a longer
    word), the whole budget on the word against the surface words, where a typo is made (a
    second edit on stems found the same at twice the cost)."""
    budget = typo_budget(word)
    own = analyzer.terms(word)
    if not budget or not own:
        return []
    held = max(df(term) for term in own)
    if held > (RARE_DF if len(word) > SHORT_WORD else 0):  # a short word the text holds is meant
        return []
    found: dict[str, int] = {}
    for term in own:
        space = _space(term, analyzer)
        if len(term) - len(space) <= SHORT_WORD < len(word):
            continue  # one edit on a short stem of a longer word reaches other words (ocur:
            # our, cur); the word itself is measured below (ocurred -> occurred, adr/0083)
        for candidate, edits in lexicon.near(term, min(budget, 1)).items():
            if candidate.startswith(space):
                found[candidate] = min(edits, found.get(candidate, edits))
    # on the word: the typo may change the stem (paginaton -> pagination -> pagin), and a
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
