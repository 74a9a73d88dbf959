"""Highlight cost per passage: ``highlight_spans`` over SciFact abstracts for a few queries.

    python bench/highlight_speed.py [../shared/data/beir/scifact]

Prints the best of three passes, in µs per abstract, after one pass that warms the analyzer's
term cache (as a running retriever's is), and the number of spans found (a change that keeps
the spans keeps that number).
"""

from __future__ import annotations

import gzip
import json
import sys
import time
from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.retrieval.highlight import highlight_spans

QUERIES = (
    "cholesterol lowering drugs reduce heart disease risk",
    "ß-cell function in type 2 diabetes",
    "tumour suppressor p53 mutations",
)


def main() -> None:
    root = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data/beir/scifact")
    with gzip.open(root / "corpus.jsonl.gz", "rt", encoding="utf-8") as corpus:
        texts = [f"{d['title']}\n{d['text']}" for d in map(json.loads, corpus)][:2001]
    analyzer = Analyzer()
    wanted = [frozenset(analyzer.terms(query)) for query in QUERIES]
    for terms in wanted:
        for text in texts:
            highlight_spans(analyzer, terms, text)
    best, spans = float("inf"), 0
    for _ in range(3):
        started = time.perf_counter()
        spans = sum(len(highlight_spans(analyzer, t, text)) for t in wanted for text in texts)
        best = min(best, (time.perf_counter() - started) / (len(texts) * len(wanted)))
    print(f"highlight_spans: {best * 1e6:.1f} us per abstract (best of 3), {spans} spans")


if __name__ == "__main__":
    main()
