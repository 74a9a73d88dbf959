"""The first hybrid query after opening a collection, with and without ``Searcher.warm()``,
against the later ones (issue 32, item 4; ADR 0040).

    python bench/first_query.py INDEX_DIR     # ingests the sample with minilm there if empty

Needs the onnx extra (``pip install ".[onnx]"``). Prints, for two rounds of each, the first
query's time, the median of 12 later ones, and their ratio.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import groundkit
from groundkit.embedding.embedder_registry import resolve_embedder

QUERIES = ["how do I report a leak", "water tastes of chlorine", "boil water notice",
           "pay my bill", "frozen pipes"]  # fmt: skip


def main() -> None:
    index = Path(sys.argv[1])
    if not (index / "default").exists():
        groundkit.ingest(
            groundkit.sample_corpus(), index_dir=index, embedder=resolve_embedder("minilm")
        )
    for warm in (False, True, False, True):
        with groundkit.Searcher.open(index, embedder=resolve_embedder("minilm")) as retriever:
            if warm:
                retriever.warm()
            started = time.perf_counter()
            retriever.search(QUERIES[0], mode="hybrid")
            first = (time.perf_counter() - started) * 1000
            later = []
            for query in QUERIES[1:] * 3:
                started = time.perf_counter()
                retriever.search(query, mode="hybrid")
                later.append((time.perf_counter() - started) * 1000)
            median = statistics.median(later)
            print(f"warm={warm}: first {first:.1f} ms, later median {median:.1f} ms, "
                  f"ratio {first / median:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
