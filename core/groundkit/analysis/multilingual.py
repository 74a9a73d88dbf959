"""Per-document analysis for a collection of several languages (``--language de,fr,en``).

Each document is analyzed with the language it declares (the first listed when it declares
none) and its terms carry that language's code (``de:zahn``), so a German stem never meets a
French one; a query is analyzed in every listed language, and each document matches only the
terms of its own. See adr/0045."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from collections.abc import Set as AbstractSet
from dataclasses import dataclass, field
from typing import Any

from groundkit import codec
from groundkit.analysis.analyzer import ANALYZER_NAME, ANALYZER_VERSION, Analyzer
from groundkit.analysis.languages import LANGUAGES, resolve_language
from groundkit.errors import ConfigurationError, IndexIdentityError

__all__ = ["PER_DOCUMENT", "Multilingual"]

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
        known = {code: Analyzer.for_language(code, fold=self.fold) for code in self.codes}
        if len(self.codes) < 2 or len(known) != len(self.codes):
            raise ConfigurationError(
                f"per-document analysis needs 2+ distinct languages: {self.codes}"
            )
        object.__setattr__(self, "_parts", known)

    @classmethod
    def of(cls, tags: tuple[str, ...], *, fold: bool = False) -> Multilingual:
        """The analyzer of ``tags`` (``de``, ``pt-BR``, ``german``), kept as ISO codes."""
        codes = []
        for tag in tags:
            algorithm = resolve_language(tag)
            if algorithm is None:
                choices = ", ".join(sorted(LANGUAGES))
                raise ConfigurationError(f"unknown language {tag!r}; choose one of {choices}")
            codes.append(next(code for code, name in LANGUAGES.items() if name == algorithm))
        return cls(codes=tuple(codes), fold=fold)

    @classmethod
    def from_stored(cls, identity: Mapping[str, Any], *, subject: str) -> Multilingual:
        """The analyzer a per-document collection recorded, or ``IndexIdentityError``."""
        stored = codec.encode(dict(identity))
        codes = identity.get("languages")
        if isinstance(codes, list) and all(code in LANGUAGES for code in codes):
            candidate = cls(codes=tuple(codes), fold=identity.get("fold") == "diacritics")
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
        return identity

    @property
    def language(self) -> str | None:
        return None

    @property
    def languages(self) -> tuple[str, ...]:
        return tuple(LANGUAGES[code] for code in self.codes)

    def accepts(self, declared: str) -> bool:
        return resolve_language(declared) in self.languages

    def code_for(self, declared: str | None) -> str:
        """The code whose analysis a document declaring ``declared`` gets."""
        if declared is None:
            return self.codes[0]
        algorithm = resolve_language(declared)
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
