"""A/B in one process over one collection (adr/0060): BM25 on a BEIR set with the question
words kept in the query (``Searcher.question_terms`` emptied) and left out, as shipped.

    python bench/question_words_ab.py ../shared/data/beir/scifact --index-dir runs
"""

from __future__ import annotations

import argparse
import io
import json
from contextlib import redirect_stdout

from groundkit.cli import main
from groundkit.retrieval.searcher import Searcher

KEYS = ("ndcg@10", "recall@100", "mrr@10", "map@100", "queries")


def run() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dataset")
    parser.add_argument("--index-dir", required=True)
    args = parser.parse_args()
    shipped = Searcher.question_terms
    out = {}
    for label in ("with_question_words", "without"):
        kept = label == "with_question_words"
        Searcher.question_terms = (lambda self: frozenset()) if kept else shipped  # type: ignore[method-assign]
        buffer = io.StringIO()
        with redirect_stdout(buffer):
            main(["eval", args.dataset, "--index-dir", args.index_dir, "--mode", "bm25", "--json"])
        report = json.loads(buffer.getvalue())
        out[label] = {key: report[key] for key in KEYS if key in report}
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    raise SystemExit(run())
