"""The analyzer: tokens -> stopword filter -> stemmer, with an identity stored in the collection.

The chain follows Lucene's EnglishAnalyzer: words, possessive ``'s`` dropped, stopwords
removed, stems applied. A collection is bound to the identity of the analyzer that built it;
searching or ingesting with another one is refused (``IndexIdentityError``) because the terms
would not match.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from groundkit import codec
from groundkit.analysis.languages import (
    ELISIONS,
    LANGUAGES,
    fold_diacritics,
    language_stemmer,
    stemmer_release,
)
from groundkit.analysis.languages import resolve_language as _resolve_language
from groundkit.analysis.markup import MARKUP, without_markup
from groundkit.analysis.stopwords import FOLDED_STOPWORD_SETS, STOPWORD_SETS
from groundkit.analysis.tokenize import token_spans, tokens, wanted_token_spans
from groundkit.errors import ConfigurationError, IndexIdentityError
from groundkit.memo import Memo

__all__ = [
    "ANALYZER_NAME",
    "ANALYZER_VERSION",
    "HEADING_WEIGHT",
    "PER_DOCUMENT",
    "STEMMERS",
    "Analyzer",
    "Multilingual",
]

ANALYZER_NAME = "groundkit.standard"
ANALYZER_VERSION = 2
"""Bumped whenever the terms produced for some text change."""
HEADING_WEIGHT = 3
"""How many times a new collection counts a chunk's heading path (page title and section
headings) among the chunk's terms: BM25F's weight of a second field (adr/0065)."""

STEMMERS: tuple[str, ...] = (
    "porter",
    "snowball-english",
    "none",
    *(f"snowball-{name}" for name in sorted(LANGUAGES.values()) if name != "english"),
)
_ASCII_ONLY = frozenset(("porter", "snowball-english"))
"""Stemmers that leave a non-ASCII word as it is (so existing identities keep their terms)."""
_CACHE_LIMIT = 1 << 19
_POSSESSIVE = ("'s", "\u2019s")


def _load_stemmer(name: str) -> Callable[[str], str] | None:
    if name == "porter":
        from groundkit.analysis import porter

        return porter.stem
    if name.startswith("snowball-"):
        return language_stemmer(name.removeprefix("snowball-"))
    return None


@dataclass(frozen=True)
class Analyzer:
    """Turns text into index terms. Equal identities always produce equal terms."""

    stemmer: str = "porter"
    """The stemmer's name (``porter``, ``snowball-german``, ``none``): see ``STEMMERS``."""
    stopwords: str = "lucene-english"
    """The stop-word set's name (``lucene-english``, ``none``): words never indexed."""
    fold: bool = False
    """Fold diacritics off each term (``zahne`` finds ``Zähne``)."""
    headings: int = HEADING_WEIGHT
    """Times a chunk's heading path counts among its terms (``chunk_terms``); 0: the chunk's
    text alone, as every collection built before adr/0065 (their identity has no key)."""
    markup: bool = True
    """Blank the reST markup a reader never sees (role names, hyperlink targets, embedded URIs,
    reference underscores) out of a chunk's text before analysis (``readable``); False: as
    every collection built before adr/0073 (their identity has no key)."""
    _stem: Callable[[str], str] | None = field(init=False, repr=False, compare=False)
    _stop: frozenset[str] = field(init=False, repr=False, compare=False)
    _cache: Memo[str, str] = field(init=False, repr=False, compare=False)
    """Word -> index term ("" for a stopword), each word analyzed on its first lookup."""
    _elided: frozenset[str] = field(init=False, repr=False, compare=False)
    _stop_folded: bool = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if self.stemmer not in STEMMERS:
            raise ConfigurationError(
                f"unknown stemmer {self.stemmer!r}; choose one of {', '.join(STEMMERS)}"
            )
        if self.stopwords not in STOPWORD_SETS:
            raise ConfigurationError(
                f"unknown stopword set {self.stopwords!r}; choose one of {', '.join(STOPWORD_SETS)}"
            )
        _check_heading_weight(self.headings)
        object.__setattr__(self, "_stem", _load_stemmer(self.stemmer))
        object.__setattr__(self, "_stop", STOPWORD_SETS[self.stopwords])
        object.__setattr__(self, "_stop_folded", self.stopwords in FOLDED_STOPWORD_SETS)
        object.__setattr__(self, "_cache", Memo(self._term, _CACHE_LIMIT))
        elided = ELISIONS.get(self.stemmer.removeprefix("snowball-"), frozenset())
        object.__setattr__(self, "_elided", elided)

    @classmethod
    def for_language(
        cls, tag: str, *, fold: bool = False, headings: int = HEADING_WEIGHT, markup: bool = True
    ) -> Analyzer:
        """The analyzer of a language (``de``, ``pt-BR``, ``german``): its Snowball stemmer and
        stop words: Snowball's list, else Lucene's, else none (Yiddish)."""
        algorithm = _resolve_language(tag)
        if algorithm is None:
            codes = ", ".join(sorted(LANGUAGES))
            raise ConfigurationError(f"unknown language {tag!r}; choose one of {codes}")
        lists = (f"snowball-{algorithm}", f"lucene-{algorithm}")
        stopwords = next((name for name in lists if name in STOPWORD_SETS), "none")
        return cls(
            stemmer=f"snowball-{algorithm}",
            stopwords=stopwords,
            fold=fold,
            headings=headings,
            markup=markup,
        )

    @classmethod
    def for_languages(
        cls, tags: str, *, fold: bool = False, headings: int = HEADING_WEIGHT, markup: bool = True
    ) -> Analyzer:
        """``for_language`` of one tag; of several (``de,fr,en``), per-document analysis: each
        document analyzed with its declared language, the first for those declaring none."""
        if "," not in tags:
            return cls.for_language(tags, fold=fold, headings=headings, markup=markup)
        codes = tuple(tag.strip() for tag in tags.split(","))
        return Multilingual.of(codes, fold=fold, headings=headings, markup=markup)

    def document_terms(self, text: str, language: str | None) -> list[str]:
        """The index terms of a document's ``text``, which declares ``language`` (or None)."""
        return self.terms(text)

    def chunk_terms(
        self, text: str, heading_path: Sequence[str], language: str | None
    ) -> list[str]:
        """A chunk's postings: the terms of its ``text``, then those of each heading of its
        ``heading_path`` ``headings`` times (a field weight that BM25 sees as term frequency
        and length, so every reader of postings scores it alike: adr/0065), each ``readable``."""
        readable = self.readable
        terms = self.document_terms(readable(text), language)
        if self.headings:  # each heading analyzed once, its terms counted ``headings`` times
            path = [t for h in heading_path for t in self.document_terms(readable(h), language)]
            terms.extend(path * self.headings)
        return terms

    def readable(self, text: str) -> str:
        """``text`` as a reader of the rendered page sees it: with ``markup``, its reST markup
        blanked (``analysis.markup``; every offset kept), else as it is."""
        return without_markup(text) if self.markup else text

    def accepts(self, declared: str) -> bool:
        """Whether a document declaring ``declared`` can be analyzed as its language says."""
        return self.language is None or _resolve_language(declared) == self.language

    @property
    def namespaces(self) -> tuple[str, ...]:
        """What this analyzer's terms start with before the word: "" (per-document analysis
        tags each term with its language, ``de:``)."""
        return ("",)

    @property
    def languages(self) -> tuple[str, ...]:
        """The Snowball languages documents may declare; empty: any."""
        return () if self.language is None else (self.language,)

    @property
    def language(self) -> str | None:
        """The Snowball language ``for_language`` made this analyzer for, else None."""
        algorithm = self.stemmer.removeprefix("snowball-")
        if algorithm == self.stemmer:  # porter, none
            return None
        if algorithm == "english" and self.stopwords != "snowball-english":
            return None  # --stemmer snowball-english, from before languages
        return algorithm

    @property
    def identity(self) -> dict[str, Any]:
        identity: dict[str, Any] = {
            "name": ANALYZER_NAME,
            "version": ANALYZER_VERSION,
            "stemmer": self.stemmer,
            "stopwords": self.stopwords,
            "cjk": "bigram",
        }
        if self.fold:  # absent when off: identities from before folding existed stay equal
            identity["fold"] = "diacritics"
        if self.headings:  # absent when 0: identities from before heading weight stay equal
            identity["headings"] = self.headings
        if self.markup:  # absent when off: identities from before adr/0073 stay equal
            identity["markup"] = MARKUP
        if self.stemmer.startswith("snowball-") and self.stemmer != "snowball-english":
            identity["release"] = stemmer_release()
        return identity

    @property
    def identity_json(self) -> str:
        return codec.encode(self.identity)

    @classmethod
    def from_identity(cls, identity: Mapping[str, Any], *, subject: str) -> Analyzer:
        """Rebuild the analyzer a collection was built with, or refuse one we do not have."""
        stored = codec.encode(dict(identity))
        if "languages" in identity:
            return Multilingual.from_stored(identity, subject=subject)
        stemmer, stopwords = identity.get("stemmer"), identity.get("stopwords")
        headings = _heading_weight(identity)
        if stemmer in STEMMERS and stopwords in STOPWORD_SETS and headings is not None:
            candidate = cls(
                stemmer=str(stemmer),
                stopwords=str(stopwords),
                fold=identity.get("fold") == "diacritics",
                headings=headings,
                markup="markup" in identity,  # any other value than MARKUP is refused below
            )
            if candidate.identity_json == stored:
                return candidate
            built, have = identity.get("release"), candidate.identity.get("release")
            if built != have and isinstance(built, str):
                raise IndexIdentityError(
                    f"collection {subject} was stemmed by {built}, this environment has {have}"
                    f", which may stem some words differently; pip install "
                    f'"{built.replace(" ", "==")}", or re-ingest into a new collection',
                    subject=subject,
                    expected=stored,
                    found=candidate.identity_json,
                )
        raise IndexIdentityError(
            f"collection {subject} was built with analyzer {stored}, which this version of "
            f"groundkit cannot reproduce (it has {ANALYZER_NAME} version {ANALYZER_VERSION}); "
            "re-ingest the documents into a new collection",
            subject=subject,
            expected=stored,
            found=f"{ANALYZER_NAME} version {ANALYZER_VERSION}",
        )

    def terms(self, text: str) -> list[str]:
        """The index terms of ``text``, in order, stopwords removed and stems applied.

        Every word is looked up in one ``map`` over the cache (a word not cached yet is
        analyzed by the lookup itself) and stopwords (cached as "") dropped in one ``filter``,
        without a Python loop over the words."""
        return list(filter(None, map(self._cache.__getitem__, tokens(text))))

    def term_spans(self, text: str) -> Iterator[tuple[str, int, int]]:
        """Each index term of ``text`` with the code-point span of the word it came from.

        The terms are those of ``terms(text)``; a span covers the surface word (``running``
        for the term ``run``, ``John's`` for ``john``), a CJK bigram covers its two characters.
        """
        cache = self._cache
        for word, start, end in token_spans(text):
            term = cache[word]
            if term:
                yield term, start, end

    def matched_spans(self, text: str, terms: AbstractSet[str]) -> list[tuple[int, int]]:
        """The spans of ``term_spans(text)`` whose term is in ``terms``, in order.

        Only the text's distinct words are analyzed, not every occurrence; the words whose
        term is wanted are then located in one scan (none: no scan)."""
        cache = self._cache
        wanted = set()
        for word in set(tokens(text)):
            if cache[word] in terms:
                wanted.add(word)
        return wanted_token_spans(text, wanted) if wanted else []

    def _term(self, word: str) -> str:
        """The index term of one token; "" for a stopword (a cached "drop it")."""
        token = word[:-2] if word.endswith(_POSSESSIVE) else word
        if self._elided:
            head, _, rest = token.replace("\u2019", "'").partition("'")
            if rest and head in self._elided:
                token = rest
        if (fold_diacritics(token) if self._stop_folded else token) in self._stop:
            return ""
        if self._stem is None or (self.stemmer in _ASCII_ONLY and not token.isascii()):
            term = token
        else:
            term = self._stem(token)
        return fold_diacritics(term) if self.fold else term


# Per-document analysis for a collection of several languages (``--language de,fr,en``),
# in this module because it is an Analyzer that ``Analyzer.from_identity`` returns (adr/0045).
PER_DOCUMENT = "per-document"


@dataclass(frozen=True)
class Multilingual(Analyzer):
    """An analyzer per language, chosen by each document's declared language."""

    stemmer: str = PER_DOCUMENT
    stopwords: str = PER_DOCUMENT
    codes: tuple[str, ...] = ()
    """ISO 639-1 codes, the first for documents that declare no language."""
    _parts: dict[str, Analyzer] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        _check_heading_weight(self.headings)
        # the parts analyze text; the heading weight and the markup rule are the collection's,
        # named once at the top
        known = {
            code: Analyzer.for_language(code, fold=self.fold, headings=0, markup=False)
            for code in self.codes
        }
        if len(self.codes) < 2 or len(known) != len(self.codes):
            raise ConfigurationError(
                f"per-document analysis needs 2+ distinct languages: {self.codes}"
            )
        object.__setattr__(self, "_parts", known)

    @classmethod
    def of(
        cls,
        tags: tuple[str, ...],
        *,
        fold: bool = False,
        headings: int = HEADING_WEIGHT,
        markup: bool = True,
    ) -> Multilingual:
        """The analyzer of ``tags`` (``de``, ``pt-BR``, ``german``), kept as ISO codes."""
        codes = []
        for tag in tags:
            algorithm = _resolve_language(tag)
            if algorithm is None:
                choices = ", ".join(sorted(LANGUAGES))
                raise ConfigurationError(f"unknown language {tag!r}; choose one of {choices}")
            codes.append(next(code for code, name in LANGUAGES.items() if name == algorithm))
        return cls(codes=tuple(codes), fold=fold, headings=headings, markup=markup)

    @classmethod
    def from_stored(cls, identity: Mapping[str, Any], *, subject: str) -> Multilingual:
        """The analyzer a per-document collection recorded, or ``IndexIdentityError``."""
        stored = codec.encode(dict(identity))
        codes = identity.get("languages")
        headings = _heading_weight(identity)
        known = isinstance(codes, list) and all(code in LANGUAGES for code in codes)
        if known and headings is not None:
            assert isinstance(codes, list)
            fold = identity.get("fold") == "diacritics"
            markup = "markup" in identity  # any other value than MARKUP is refused below
            candidate = cls(codes=tuple(codes), fold=fold, headings=headings, markup=markup)
            if candidate.identity_json == stored:
                return candidate
        raise IndexIdentityError(
            f"collection {subject} was built with analyzer {stored}, which this version of "
            "groundkit (or of snowballstemmer) cannot reproduce; re-ingest into a new collection",
            subject=subject,
            expected=stored,
            found=f"{ANALYZER_NAME} version {ANALYZER_VERSION}",
        )

    @property
    def identity(self) -> dict[str, Any]:
        identity: dict[str, Any] = {
            "name": ANALYZER_NAME,
            "version": ANALYZER_VERSION,
            "stemmer": PER_DOCUMENT,
            "languages": list(self.codes),
            "parts": [self._parts[code].identity for code in self.codes],
            "cjk": "bigram",
        }
        if self.fold:
            identity["fold"] = "diacritics"
        if self.headings:
            identity["headings"] = self.headings
        if self.markup:
            identity["markup"] = MARKUP
        return identity

    @property
    def language(self) -> str | None:
        return None

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(LANGUAGES[code] for code in self.codes)

    def accepts(self, declared: str) -> bool:
        return _resolve_language(declared) in self.languages

    def code_for(self, declared: str | None) -> str:
        """The code whose analysis a document declaring ``declared`` gets."""
        if declared is None:
            return self.codes[0]
        algorithm = _resolve_language(declared)
        for code in self.codes:
            if LANGUAGES[code] == algorithm:
                return code
        raise ConfigurationError(f"language {declared!r} is not one of {', '.join(self.codes)}")

    def document_terms(self, text: str, language: str | None) -> list[str]:
        code = self.code_for(language)
        return [f"{code}:{term}" for term in self._parts[code].terms(text)]

    @property
    def namespaces(self) -> tuple[str, ...]:
        return tuple(f"{code}:" for code in self.codes)

    def terms(self, text: str) -> list[str]:
        """A query's terms: its analysis in every language, each term tagged with its code."""
        return [f"{code}:{term}" for code in self.codes for term in self._parts[code].terms(text)]

    def term_spans(self, text: str) -> Iterator[tuple[str, int, int]]:
        for code in self.codes:
            for term, start, end in self._parts[code].term_spans(text):
                yield f"{code}:{term}", start, end

    def matched_spans(self, text: str, terms: AbstractSet[str]) -> list[tuple[int, int]]:
        spans: set[tuple[int, int]] = set()
        for code in self.codes:
            prefix = f"{code}:"
            own = frozenset(t[len(prefix) :] for t in terms if t.startswith(prefix))
            if own:
                spans.update(self._parts[code].matched_spans(text, own))
        return sorted(spans)


def _heading_weight(identity: Mapping[str, Any]) -> int | None:
    """The heading weight an identity records (0 where it has none), None if not a weight."""
    found = identity.get("headings", 0)
    return found if type(found) is int and found >= 0 else None


def _check_heading_weight(value: object) -> None:
    if type(value) is not int or value < 0:
        raise ConfigurationError(f"the heading weight must be a whole number >= 0, got {value!r}")
