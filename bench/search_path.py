"""The public search path against the index alone: what results with citations cost.

    python bench/search_path.py                      # SciFact, k = 10 and 1000, 3 rounds
    python bench/search_path.py --dataset ../shared/data/beir/cranfield --rounds 5

Builds the dataset into a temporary SQLite collection (``Indexer.ingest_texts``), opens one
``Searcher``, warms it with one pass of the queries, then times, in turns within each round,
for each k: ``index`` (``BM25Index.top_k`` on the analysed query: keys and scores only),
``search`` (``Searcher.search(mode="bm25", highlight=False)``: analysis, the same top k, the
join of every hit to its chunk, document and citation) and ``search+highlights`` (the
default: also where the query's words are in each passage). Prints queries/s, the best round
of each, and search ÷ index; the accelerator is whatever ``auto`` picks here (numpy when it
imports).
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from groundkit.collection import open_store
from groundkit.evaluation.beir import BeirDataset
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir" / "scifact"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--k", type=int, nargs="+", default=[10, 1000])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    dataset = BeirDataset.load(args.dataset)
    queries = [text for _, text in sorted(dataset.queries.items()) if text.strip()]
    with tempfile.TemporaryDirectory() as work:
        store = open_store(work, "bench")
        try:
            pairs = [(f"{d.doc_id}.txt", d.flat) for d in dataset.corpus()]
            Indexer(store).ingest_texts(Path(work) / "corpus", pairs)
        finally:
            store.close()
        with Searcher.open(work, "bench") as retriever:
            lexical = retriever._lexical  # the index alone, as the retriever holds it
            analyzed = [retriever.analyzer.terms(query) for query in queries]
            ties = retriever._tie_keys

            def index(k: int) -> None:
                for terms in analyzed:
                    lexical.top_k(terms, k, ties)

            def search(k: int, highlight: bool) -> None:
                for query in queries:
                    retriever.search(query, k, "bm25", highlight=highlight)

            systems: dict[str, Callable[[int], None]] = {
                "index": index,
                "search": lambda k: search(k, False),
                "search+highlights": lambda k: search(k, True),
            }
            print(
                f"{args.dataset.name}: {len(queries)} queries, accelerator "
                f"{lexical.accelerator}, load {os.getloadavg()[0]:.2f}"
            )
            for k in args.k:
                for run in systems.values():
                    run(k)  # warm: postings, tie keys and term caches
                best = dict.fromkeys(systems, 0.0)
                for _ in range(args.rounds):
                    for name, run in systems.items():
                        started = time.perf_counter()
                        run(k)
                        rate = len(queries) / (time.perf_counter() - started)
                        best[name] = max(best[name], rate)
                shown = ", ".join(f"{name} {rate:,.0f} q/s" for name, rate in best.items())
                ratio = best["index"] / best["search"]
                print(f"k={k}: {shown}; search takes {ratio:.2f}x the index's time")
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
