"""Stemmer speed: the core's English stemmer, snowballstemmer (pure Python) and PyStemmer (C).

    python bench/stemmer_speed.py [tests/data/snowball]

Stems each vocabulary of tests/data/snowball once per pass (no cache: every word is stemmed)
and prints the best of three passes in µs per word. Needs snowballstemmer and PyStemmer
(bench/requirements.txt); the figures of adr/0045 came from this script.
"""

from __future__ import annotations

import gzip
import sys
import time
from collections.abc import Callable
from pathlib import Path

import Stemmer

from groundkit.analysis import snowball
from groundkit.analysis.languages import language_stemmer

LANGUAGES = ("english", "german", "french", "russian", "finnish")


def _words(root: Path, language: str) -> list[str]:
    with gzip.open(root / f"{language}.txt.gz", "rt", encoding="utf-8") as handle:
        return [line.partition("\t")[0] for line in handle.read().splitlines()]


def _best_us(stem: Callable[[str], str], words: list[str]) -> float:
    best = float("inf")
    for _ in range(3):
        started = time.perf_counter()
        for word in words:
            stem(word)
        best = min(best, time.perf_counter() - started)
    return best / len(words) * 1e6


def _pure(language: str) -> Callable[[str], str]:
    if language != "english":
        return language_stemmer(language)
    from snowballstemmer.english_stemmer import EnglishStemmer

    return EnglishStemmer().stemWord


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "tests/data/snowball")
    print(f"{'language':<10} {'words':>7} {'core':>7} {'snowballstemmer':>16} {'PyStemmer':>10}")
    for language in LANGUAGES:
        words = _words(root, language)
        core = f"{_best_us(snowball.stem, words):7.2f}" if language == "english" else "      -"
        # the pure-Python class groundkit uses (snowballstemmer.stemmer() would be PyStemmer)
        pure = _best_us(_pure(language), words)
        native = _best_us(Stemmer.Stemmer(language).stemWord, words)
        print(f"{language:<10} {len(words):>7} {core} {pure:16.2f} {native:10.2f}  (µs/word)")


if __name__ == "__main__":
    main()
