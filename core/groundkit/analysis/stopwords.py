"""Stopword sets. ``LUCENE_ENGLISH`` is Lucene's ``EnglishAnalyzer.ENGLISH_STOP_WORDS_SET``."""

from __future__ import annotations

__all__ = ["LUCENE_ENGLISH", "STOPWORD_SETS"]

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

STOPWORD_SETS: dict[str, frozenset[str]] = {"lucene-english": LUCENE_ENGLISH, "none": frozenset()}
