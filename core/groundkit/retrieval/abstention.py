"""When a dense or hybrid search says "nothing here": evidence judged once per query.

Dense evidence: the query's best similarity reaches the floor (adr/0024). It is judged on the
best passage only, so a query that has evidence keeps its whole ranked list: dropping each
passage under the floor cost recall where the floor was not fitted (adr/0049).

Lexical evidence, for hybrid when the dense leg has none: the best BM25 score as a share of the
query's ideal score (the sum of its terms' idf, which no chunk reaches, since each term adds
``idf * tf / (tf + norm)`` < idf). A word the collection lacks adds its full idf to the ideal and
nothing to any score, so an off-topic question that shares a few common words with the
collection stays far under the share an on-topic one reaches. bm25 uses the same share where
the collection records a bar (adr/0060), on the query's ``EVIDENCE_TERMS`` most specific
content terms (adr/0071); a word typed half or with a typo is measured by what its expansion
stands for (``stood_for``, adr/0069). Where that bar applies, a question that names a thing the
collection lacks (``names``: ``FastAPI`` asked of Django's docs) has nothing here whatever its
share (adr/0080).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from groundkit.analysis.tokenize import cased_words

__all__ = [
    "DEFAULT_MIN_LEXICAL_SHARE",
    "EVIDENCE_TERMS",
    "NOUNS_CAPITALISED",
    "SENTENCE_END",
    "absent_name",
    "dense_has_evidence",
    "lexical_share",
    "names",
    "stood_for",
]

DEFAULT_MIN_LEXICAL_SHARE = 0.24
"""Hybrid answers on BM25 alone (no dense evidence) only from this share up (adr/0049)."""
EVIDENCE_TERMS = 4
"""bm25's share counts at most this many of a query's terms in its ideal, the highest idf
first: the median number of content terms of the shipped off-topic questions its bar is set
on, so a longer query is not held to more words than those questions name (adr/0071)."""
NOUNS_CAPITALISED = frozenset({"german"})
"""Snowball languages that capitalise every noun: a capital begins no name there (adr/0080)."""
SENTENCE_END = frozenset(".?!¿¡。")
"""A word after one of these starts a sentence: its capital names nothing (adr/0080)."""


def lexical_share(
    best: float | None,
    terms: Sequence[str],
    idf: Callable[[str], float],
    most: int | None = None,
) -> float:
    """``best`` (the top BM25 score) over the query's ideal score, at most 1.0; 0.0 without a
    hit. ``most``: the ideal sums only that many of the terms' idf, the highest first (in
    query order when there are no more than that: the same bits as with no ``most``)."""
    weights = [idf(term) for term in terms]  # a repeat counts again
    if most is not None and len(weights) > most:
        weights = sorted(weights, reverse=True)[:most]
    ideal = 0.0  # added in order, not sum(): its rounding changed in Python 3.12 (the page's
    for weight in weights:  # JS mirrors this loop bit for bit, adr/0069)
        ideal += weight
    return 0.0 if best is None or ideal <= 0.0 else min(1.0, best / ideal)


def names(query: str, languages: Sequence[str] = ()) -> list[str]:
    """The words of ``query`` that name a thing by their capitals (adr/0080): a capital past
    the first character (``FastAPI``, ``pgAdmin``, ``PDF``), or a capitalised word that starts
    no sentence (``Tokyo``), unless one of ``languages`` capitalises its nouns; one character
    (``I``) is no name. The words are the tokenizer's (``Node.js``, ``O'Reilly``). None where
    no word begins with a letter other than a capital: capitals throughout, or on every word,
    say nothing of names."""
    words = cased_words(query)
    if not any(word[0].isalpha() and not word[0].isupper() for word, _ in words):
        return []
    capitalised = not NOUNS_CAPITALISED.intersection(languages)
    found = []
    for at, (word, before) in enumerate(words):
        starts = at == 0 or not SENTENCE_END.isdisjoint(before)
        inner = any(c.isupper() for c in word[1:])
        if len(word) > 1 and (inner or (capitalised and not starts and word[0].isupper())):
            found.append(word)
    return found


def absent_name(
    query: str,
    languages: Sequence[str],
    terms_of: Callable[[str], list[str]],
    held: Callable[[list[str]], Mapping[str, int]],
    stood: frozenset[str],
    framing: frozenset[str] = frozenset(),
) -> str | None:
    """The first of ``query``'s ``names`` whose every term but a question word's (``framing``:
    ``Whom``) the collection lacks (``held``: the chunks holding each), none of them stood
    for by an expansion (a corrected or completed word names what it was taken for); None
    where there is no such name (adr/0080)."""
    for word in names(query, languages):
        terms = [term for term in terms_of(word) if term not in framing]
        if terms and stood.isdisjoint(terms) and not any(held(terms).values()):
            return word
    return None


def dense_has_evidence(best: float | None, floor: float) -> bool:
    """Whether the query's best similarity reaches the floor."""
    return best is not None and best >= floor


def stood_for(
    prefix: Mapping[str, list[str]],
    fuzzy: Mapping[str, list[str]],
    terms: Callable[[str], list[str]],
) -> frozenset[str]:
    """The terms of the words an expansion stands for: each corrected word's (``fuzzy``), and
    each completed word's where a completion begins with one of them (a word being typed; a
    shorter prefix's completions are a guess at another word). Those the collection lacks
    leave bm25's ideal score (adr/0069)."""
    found = {term for word in fuzzy for term in terms(word)}
    for word, completions in prefix.items():
        own = terms(word)
        if any(done.startswith(term) for done in completions for term in own):
            found.update(own)
    return frozenset(found)
