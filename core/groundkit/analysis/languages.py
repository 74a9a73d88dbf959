"""Languages: ISO 639-1 codes, their Snowball stemmers and stop word lists, and folding.

The English stemmer is the core's own (``snowball.py``); every other language's comes from the
pure-Python ``snowballstemmer`` package (generated from the Snowball sources, BSD), imported
only when a collection asks for it, so a missing package is a ``ConfigurationError`` naming
the ``languages`` extra. Stop word lists are Snowball's, generated into the core
(``snowball_stopwords.py``); a language Snowball has no list for has none. See adr/0045.
"""

from __future__ import annotations

import importlib
import re
import unicodedata
from collections.abc import Callable
from functools import cache

from groundkit.errors import ConfigurationError
from groundkit.plugins import install_hint

__all__ = [
    "ELISIONS",
    "LANGUAGES",
    "fold_diacritics",
    "language_stemmer",
    "resolve_language",
    "stemmer_release",
]

LANGUAGES: dict[str, str] = {
    "ar": "arabic",
    "hy": "armenian",
    "eu": "basque",
    "ca": "catalan",
    "da": "danish",
    "nl": "dutch",
    "en": "english",
    "fi": "finnish",
    "fr": "french",
    "de": "german",
    "el": "greek",
    "hi": "hindi",
    "hu": "hungarian",
    "id": "indonesian",
    "ga": "irish",
    "it": "italian",
    "lt": "lithuanian",
    "ne": "nepali",
    "no": "norwegian",
    "pt": "portuguese",
    "ro": "romanian",
    "ru": "russian",
    "sr": "serbian",
    "es": "spanish",
    "sv": "swedish",
    "ta": "tamil",
    "tr": "turkish",
    "yi": "yiddish",
}
"""ISO 639-1 code -> Snowball algorithm: Pagefind's set of stemmed languages."""

ELISIONS: dict[str, frozenset[str]] = {
    "french": frozenset(
        ["l", "m", "t", "qu", "n", "s", "j", "d", "c", "jusqu", "quoiqu", "lorsqu", "puisqu"]
    ),
    "italian": frozenset(
        [
            "c",
            "l",
            "all",
            "dall",
            "dell",
            "nell",
            "sull",
            "coll",
            "pell",
            "gl",
            "agl",
            "dagl",
            "degl",
            "negl",
            "sugl",
            "un",
            "m",
            "t",
            "s",
            "v",
            "d",
        ]
    ),
    "catalan": frozenset(["d", "l", "m", "n", "s", "t"]),
    "irish": frozenset(["d", "m", "b"]),
}
"""Articles and pronouns elided before an apostrophe (``l'installation``), dropped before
stemming: the lists of Lucene's FrenchAnalyzer, ItalianAnalyzer, CatalanAnalyzer and
IrishAnalyzer (ElisionFilter)."""

_DIACRITICS = re.compile("[\u0300-\u036f]")
_ALIASES = {"nb": "no", "nn": "no"}


def resolve_language(tag: str) -> str | None:
    """The Snowball algorithm for a language tag (``de``, ``de-AT``, ``German``), or None.

    The primary subtag decides (BCP 47: ``pt-BR`` is Portuguese); a full algorithm name is
    accepted as well."""
    primary = tag.strip().replace("_", "-").split("-", 1)[0].casefold()
    primary = _ALIASES.get(primary, primary)
    if primary in LANGUAGES:
        return LANGUAGES[primary]
    return primary if primary in LANGUAGES.values() else None


@cache
def language_stemmer(algorithm: str) -> Callable[[str], str]:
    """The stem function of a Snowball algorithm (English: the core's own).

    snowballstemmer's own generated Python class, never ``snowballstemmer.stemmer()``, which
    hands out PyStemmer's C stemmers when that is installed: they may come from another
    Snowball release and stem some words differently (adr/0045)."""
    if algorithm == "english":
        from groundkit.analysis import snowball

        return snowball.stem
    try:
        module = importlib.import_module(f"snowballstemmer.{algorithm}_stemmer")
    except ImportError as exc:
        raise ConfigurationError(
            f"the {algorithm} stemmer needs the snowballstemmer package: "
            + install_hint("languages")
        ) from exc
    stem: Callable[[str], str] = getattr(module, f"{algorithm.title()}Stemmer")().stemWord
    return stem


@cache
def stemmer_release() -> str:
    """``snowballstemmer X.Y.Z``: recorded in the identity of every collection it stems, since
    another release may stem some words differently."""
    from importlib import metadata  # 15 ms to import: only where a snowball stemmer is used

    try:
        return f"snowballstemmer {metadata.version('snowballstemmer')}"
    except metadata.PackageNotFoundError as exc:
        raise ConfigurationError(
            "snowballstemmer is importable but has no package metadata, so the release that "
            f"stems this collection cannot be recorded: {install_hint('languages')}"
        ) from exc


def fold_diacritics(term: str) -> str:
    """``term`` with its diacritics removed (``zähne`` -> ``zahne``), recomposed.

    Like Lucene's ASCIIFoldingFilter for accented letters: NFKD, then the combining diacritical
    marks (U+0300-U+036F) dropped. Other marks (Devanagari vowel signs, the virama) stay, as
    do letters that do not decompose (``ø``, ``ß``)."""
    if term.isascii():
        return term
    decomposed = unicodedata.normalize("NFKD", term)
    return unicodedata.normalize("NFC", _DIACRITICS.sub("", decomposed))
