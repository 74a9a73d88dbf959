"""Unicode-aware word tokenization: NFKC, casefold, words with their combining marks kept.

Words are runs of letters, digits, underscores and combining marks (so Devanagari or Arabic
words with vowel signs stay whole), held together across an apostrophe or period between
letters and a period or comma between digits, as Unicode's word boundaries (UAX #29) say.
Han, kana and Hangul have no spaces between words, so each run of them becomes overlapping
character bigrams (a single character stays a unigram), as Lucene's CJKBigramFilter does.
See adr/0003-analysis.md.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet
from functools import lru_cache

__all__ = [
    "MAX_SURFACE_WORD",
    "MIN_SURFACE_WORD",
    "cased_words",
    "surface_words",
    "token_spans",
    "tokenize",
    "tokens",
    "wanted_token_spans",
]

# Han (incl. extensions and compatibility), Hiragana, Katakana (incl. phonetic extensions and
# the prolonged sound mark), Hangul syllables and jamo.
_CJK = (
    "\u1100-\u11ff\u3040-\u30ff\u31f0-\u31ff\u3400-\u4dbf\u4e00-\u9fff"
    "\ua960-\ua97f\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003134f"
)


_MARK_SCAN = ((0x0300, 0x20000), (0xE0100, 0xE01F0))
"""Where combining marks that ``\\w`` does not cover are looked for (``_is_mark``)."""


def _is_mark(char: str) -> bool:
    """A combining mark that ``\\w`` does not cover (the word pattern adds these)."""
    cp = ord(char)
    return (
        any(low <= cp < high for low, high in _MARK_SCAN)
        and unicodedata.category(char)[0] == "M"
        and not char.isalnum()
    )


@lru_cache(maxsize=1)
def _mark_ranges() -> str:
    """A regex class body for combining marks that ``\\w`` does not cover."""
    category = unicodedata.category  # _is_mark, unrolled: 130k code points are scanned
    marks = [
        cp
        for low, high in _MARK_SCAN
        for cp, kind in enumerate(map(category, map(chr, range(low, high))), low)
        if kind[0] == "M" and not chr(cp).isalnum()
    ]
    spans: list[tuple[int, int]] = []
    for cp in marks:
        if spans and spans[-1][1] == cp - 1:
            spans[-1] = (spans[-1][0], cp)
        else:
            spans.append((cp, cp))
    return "".join(
        re.escape(chr(a)) if a == b else f"{re.escape(chr(a))}-{re.escape(chr(b))}"
        for a, b in spans
    )


# Inside a word, as Unicode's word-boundary rules (UAX #29) and Lucene's StandardTokenizer
# have it: an apostrophe or period between two letters (``don't``, ``e.g``), and a period or
# comma between two digits (``0.05``, ``1,000``), do not split it.
_JOIN = r"(?:(?<=[^\W\d_])['\u2019.](?=[^\W\d_])|(?<=\d)[.,](?=\d))"


@lru_cache(maxsize=1)
def _word_pattern() -> re.Pattern[str]:
    part = rf"(?:(?![{_CJK}])[\w{_mark_ranges()}])+"
    return re.compile(rf"([{_CJK}]+)|({part}(?:{_JOIN}{part})*)")


@lru_cache(maxsize=1)
def _plain_word_pattern() -> re.Pattern[str]:
    """The word alternative of ``_word_pattern`` for text without CJK characters, where its
    per-character "not CJK" lookahead always holds and can be dropped."""
    part = rf"[\w{_mark_ranges()}]+"
    return re.compile(rf"{part}(?:{_JOIN}{part})*")


_HAS_CJK = re.compile(rf"[{_CJK}]")
_NON_ASCII = re.compile(r"[^\x00-\x7f]")
"""One non-ASCII character: most non-ASCII text has few, found faster than ``set(text)``."""
_SIMPLE_WORDS = re.compile(rf"\w+(?:{_JOIN}\w+)*")
"""The word pattern on text holding no combining mark and no CJK character (any ASCII text),
where its character class is plain ``\\w``: a smaller, faster pattern, the same words."""


_ASCII_SPACED = str.maketrans(
    {chr(c): " " for c in range(128) if not chr(c).isalnum() and chr(c) not in "_.,'"}
)
_UNJOINED = re.compile(r"[.,'](?!(?<=[^\W\d_]['.])(?=[^\W\d_])|(?<=\d[.,])(?=\d))")
"""A ``.``, ``,`` or ``'`` that does not join two parts of a word (``_JOIN`` on ASCII)."""


def _ascii_words(normalized: str) -> list[str]:
    """``_SIMPLE_WORDS.findall(normalized)`` of ASCII text, in half its time: every character
    but ``[a-z0-9_]`` and a joining ``.,'`` becomes a space (``translate``, then ``sub``), and
    the rest is ``split``. A join lies between two word characters, so it neither starts nor
    ends a word; the lookarounds see the same letters and digits after the ``translate``."""
    return _UNJOINED.sub(" ", normalized.translate(_ASCII_SPACED)).split()


def tokens(text: str) -> list[str]:
    """``list(tokenize(text))``, found in one ``findall`` (or, on ASCII, one ``split``) when
    ``text`` holds no CJK.

    The pattern is the simplest that finds the same words: plain ``\\w`` unless one of the
    text's distinct non-ASCII characters is a combining mark or CJK."""
    normalized = unicodedata.normalize("NFKC", text).casefold()
    if normalized.isascii():
        return _ascii_words(normalized)
    special = [c for c in set(_NON_ASCII.findall(normalized)) if _is_mark(c) or _HAS_CJK.match(c)]
    if not special:
        return _SIMPLE_WORDS.findall(normalized)
    if not any(_HAS_CJK.match(c) for c in special):
        return _plain_word_pattern().findall(normalized)
    return list(tokenize(text))


MIN_SURFACE_WORD = 3
"""Shorter words are left out of the surface words (a typo budget starts at four letters, so
a word one edit away has at least three)."""
MAX_SURFACE_WORD = 64
"""Longer words are left out too: query expansion refuses words this long (adr/0061)."""


def surface_words(texts: Iterable[str]) -> list[str]:
    """The distinct words of letters (``MIN_SURFACE_WORD`` to ``MAX_SURFACE_WORD`` characters;
    runs of letters joined by single underscores count, ``update_or_create``) among the tokens
    of ``texts``, in code-point order: the words typo tolerance measures its edits against,
    before any stemming (``dfsplayng`` -> ``displaying``, ``udpate_or_creathe`` ->
    ``update_or_create``)."""
    found: set[str] = set()
    for text in texts:
        found.update(tokens(text))
    return sorted(
        word
        for word in found
        if MIN_SURFACE_WORD <= len(word) <= MAX_SURFACE_WORD and _lettered(word)
    )


def _lettered(word: str) -> bool:
    """Whether ``word`` is letters, or runs of letters joined by single underscores (an
    identifier is a word a visitor types, and mistypes, whole: adr/0082)."""
    return all(part.isalpha() for part in word.split("_"))


def tokenize(text: str) -> Iterator[str]:
    """Yield the normalized tokens of ``text`` in order (no stopwords removed, nothing stemmed)."""
    normalized = unicodedata.normalize("NFKC", text).casefold()
    for match in _word_pattern().finditer(normalized):
        cjk = match.group(1)
        if cjk is None:
            yield match.group(2)
        elif len(cjk) == 1:
            yield cjk
        else:
            for i in range(len(cjk) - 1):
                yield cjk[i : i + 2]


def cased_words(text: str) -> list[tuple[str, str]]:
    """The words ``tokenize`` reads in ``text`` (a run of Han, kana or Hangul as one), NFKC
    normalized but not casefolded, each with the text between it and the word before (from the
    start for the first): their capitals tell names (adr/0080)."""
    normalized = unicodedata.normalize("NFKC", text)
    found: list[tuple[str, str]] = []
    at = 0
    for match in _word_pattern().finditer(normalized):
        found.append((match.group(), normalized[at : match.start()]))
        at = match.end()
    return found


def _normalize(text: str) -> str:
    return unicodedata.normalize("NFKC", text).casefold()


def _tokens(normalized: str) -> Iterator[tuple[str, int, int]]:
    """Tokens of already normalized text, with their spans in it."""
    if _HAS_CJK.search(normalized) is None:  # as ``tokens``: the simpler pattern, same words
        for match in _plain_word_pattern().finditer(normalized):
            yield match.group(), match.start(), match.end()
        return
    for match in _word_pattern().finditer(normalized):
        cjk = match.group(1)
        if cjk is None:
            yield match.group(2), match.start(2), match.end(2)
        elif len(cjk) == 1:
            yield cjk, match.start(1), match.end(1)
        else:
            base = match.start(1)
            for i in range(len(cjk) - 1):
                yield cjk[i : i + 2], base + i, base + i + 2


_NON_ASCII_PIECE = re.compile(r"\S*[^\x00-\x7f]\S*")


def _clusters(piece: str) -> list[str]:
    """``piece`` cut before each code point that combines with nothing before it."""
    parts: list[str] = []
    for char in piece:
        if parts and unicodedata.combining(char):
            parts[-1] += char
        else:
            parts.append(char)
    return parts


def token_spans(text: str) -> Iterator[tuple[str, int, int]]:
    """The tokens of ``tokenize(text)``, each with the code-point span of ``text`` it came from.

    Normalization can change lengths (``ß`` folds to ``ss``, ``ﬁ`` to ``fi``), so each token is
    mapped back through the characters that produced it: a span always covers whole original
    characters. Nothing composes across whitespace, so each whitespace-free piece is mapped on
    its own; where normalizing a piece character by character differs from normalizing it
    whole (rare compositions), its tokens span the whole piece.
    """
    if text.isascii():  # NFKC keeps ASCII and casefold maps it one to one
        for match in _SIMPLE_WORDS.finditer(text.lower()):
            yield match.group(), match.start(), match.end()
        return
    normalized, starts, ends = _mapped(text)
    for token, start, end in _tokens(normalized):
        yield token, starts[start], ends[end - 1]


def wanted_token_spans(text: str, wanted: AbstractSet[str]) -> list[tuple[int, int]]:
    """The spans of the tokens of ``token_spans(text)`` that are in ``wanted``, in order: the
    same spans, found in one list-building scan where the text allows (highlights)."""
    if text.isascii():
        return _ascii_wanted_spans(text.lower(), wanted)
    normalized, starts, ends = _mapped(text)
    if _HAS_CJK.search(normalized) is None:
        return [
            (starts[m.start()], ends[m.end() - 1])
            for m in _plain_word_pattern().finditer(normalized)
            if m.group() in wanted
        ]
    return [(starts[s], ends[e - 1]) for token, s, e in _tokens(normalized) if token in wanted]


def _ascii_wanted_spans(lowered: str, wanted: AbstractSet[str]) -> list[tuple[int, int]]:
    """Each occurrence of a wanted word found with ``str.find``, kept where a token starts
    there and is exactly that word: no pass of the word pattern over the whole text."""
    spans: list[tuple[int, int]] = []
    for word in wanted:
        at = lowered.find(word)
        while at >= 0:
            if _ascii_token_starts(lowered, at):
                match = _SIMPLE_WORDS.match(lowered, at)
                if match is not None and match.end() == at + len(word):
                    spans.append((at, at + len(word)))
            at = lowered.find(word, at + 1)
    spans.sort()
    return spans


def _ascii_token_starts(text: str, at: int) -> bool:
    """Whether a token of ASCII ``text`` starts at ``at`` (a word character not continuing
    the word before it, directly or across a joining ``'``, ``.`` or ``,``; see ``_JOIN``)."""
    char = text[at]
    if not (char.isalnum() or char == "_"):
        return False
    if at == 0:
        return True
    before = text[at - 1]
    if before.isalnum() or before == "_":
        return False
    if at >= 2:
        previous = text[at - 2]
        if before in "'." and previous.isalpha() and char.isalpha():
            return False
        if before in ".," and previous.isdigit() and char.isdigit():
            return False
    return True


def _mapped(text: str) -> tuple[str, list[int], list[int]]:
    """``text`` normalized, and per code point of it the original span it came from."""
    normalized: list[str] = []
    starts: list[int] = []
    ends: list[int] = []
    at = 0
    for piece in _NON_ASCII_PIECE.finditer(text):
        raw, base = piece.group(), piece.start()
        normalized.append(text[at:base].lower())  # ASCII between: maps one to one
        starts.extend(range(at, base))
        ends.extend(range(at + 1, base + 1))
        folded = _normalize(raw)
        normalized.append(folded)
        if not _owners(raw, base, folded, starts, ends):
            starts.extend([base] * len(folded))
            ends.extend([base + len(raw)] * len(folded))
        at = piece.end()
    normalized.append(text[at:].lower())
    starts.extend(range(at, len(text)))
    ends.extend(range(at + 1, len(text) + 1))
    return "".join(normalized), starts, ends


def _owners(raw: str, base: int, folded: str, starts: list[int], ends: list[int]) -> bool:
    """Append the original span of each code point of ``folded`` (``raw`` normalized), cluster
    by cluster; False, appending nothing, when that differs from normalizing ``raw`` whole."""
    clusters = _clusters(raw)
    parts = [_normalize(c) for c in clusters]
    if "".join(parts) != folded:
        return False
    at = base
    for cluster, part in zip(clusters, parts, strict=True):
        starts.extend([at] * len(part))
        ends.extend([at + len(cluster)] * len(part))
        at += len(cluster)
    return True
