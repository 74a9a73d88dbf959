"""Stopword sets. ``LUCENE_ENGLISH`` is Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``;
the ``snowball-*`` sets are Snowball's lists (``snowball_stopwords.py``), the ``lucene-*`` ones
Lucene's for the languages Snowball has none for (``lucene_stopwords.py``)."""

from __future__ import annotations

from groundkit.analysis.lucene_stopwords import LUCENE_STOPWORDS
from groundkit.analysis.snowball_stopwords import SNOWBALL_STOPWORDS

__all__ = ["FOLDED_STOPWORD_SETS", "LUCENE_ENGLISH", "STOPWORD_SETS"]

LUCENE_ENGLISH: frozenset[str] = frozenset(
    [
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "but",
        "by",
        "for",
        "if",
        "in",
        "into",
        "is",
        "it",
        "no",
        "not",
        "of",
        "on",
        "or",
        "such",
        "that",
        "the",
        "their",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "was",
        "will",
        "with",
    ]
)

STOPWORD_SETS: dict[str, frozenset[str]] = {
    "lucene-english": LUCENE_ENGLISH,
    "none": frozenset(),
    **{f"snowball-{name}": frozenset(words.split()) for name, words in SNOWBALL_STOPWORDS.items()},
    **{f"lucene-{name}": frozenset(words.split()) for name, words in LUCENE_STOPWORDS.items()},
}
"""Every stop word set by name: ``snowball-<language>`` are Snowball's lists,
``lucene-<language>`` Lucene's (adr/0045)."""

FOLDED_STOPWORD_SETS: frozenset[str] = frozenset(["lucene-greek"])
"""Sets written without diacritics, since Lucene applies them after GreekLowerCaseFilter has
dropped the tonos: a word is looked up in them with its diacritics folded (``από`` -> ``απο``)."""
