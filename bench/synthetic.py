"""Deterministic synthetic corpora: Zipf-distributed pseudo-words, written as Markdown files."""

from __future__ import annotations

import bisect
import itertools
import random
from pathlib import Path

SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def vocabulary(size: int, seed: int = 7) -> list[str]:
    """``size`` distinct pseudo-words (2-4 syllables), the same for the same seed."""
    rng = random.Random(seed)
    words: dict[str, None] = {}
    while len(words) < size:
        words["".join(rng.choices(SYLLABLES, k=rng.randint(2, 4)))] = None
    return list(words)


class ZipfSampler:
    """Samples vocabulary ranks with probability proportional to 1 / rank**s."""

    def __init__(self, words: list[str], s: float = 1.07, seed: int = 11) -> None:
        self.words = words
        weights = [1.0 / (rank**s) for rank in range(1, len(words) + 1)]
        self._cumulative = list(itertools.accumulate(weights))
        self._rng = random.Random(seed)

    def sample(self, count: int) -> list[str]:
        total = self._cumulative[-1]
        pick = self._rng.random
        return [
            self.words[bisect.bisect_left(self._cumulative, pick() * total)] for _ in range(count)
        ]


def write_corpus(
    root: Path, files: int, paragraphs: int = 4, words_per_paragraph: int = 120, seed: int = 3
) -> int:
    """Write ``files`` Markdown files of ``paragraphs`` paragraphs each; returns files written."""
    sampler = ZipfSampler(vocabulary(50_000, seed), seed=seed)
    for n in range(files):
        folder = root / f"{n // 1000:03}"
        folder.mkdir(parents=True, exist_ok=True)
        body = "\n\n".join(
            " ".join(sampler.sample(words_per_paragraph)) + "." for _ in range(paragraphs)
        )
        (folder / f"doc{n:06}.md").write_text(f"# Document {n}\n\n{body}\n", encoding="utf-8")
    return files


def queries(count: int, seed: int = 5) -> list[str]:
    """Queries of 2-4 words drawn from the mid-frequency part of the vocabulary."""
    words = vocabulary(50_000, 3)
    rng = random.Random(seed)
    return [" ".join(rng.choices(words[20:5000], k=rng.randint(2, 4))) for _ in range(count)]
