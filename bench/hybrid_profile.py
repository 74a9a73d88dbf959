"""Where a hybrid query's time goes: per-stage medians over a dataset's judged queries.

    .venv/bin/python bench/hybrid_profile.py --index-dir runs ../shared/data/beir/scifact \\
        --vector-store exact usearch --top-k 10

The collection must be kept in INDEX_DIR (``groundkit eval DATASET --index-dir INDEX_DIR
--embedder minilm``). Stages are the search trace's ``timings_ms`` (bm25, dense_and_fusion,
join, highlight, total); ``embed`` is the query embedding alone, timed separately, so
``dense_and_fusion - embed`` is the vector search and the fusion. One warm-up pass first.
"""

from __future__ import annotations

import argparse
import statistics
import time

from groundkit.evaluation.beir import BeirDataset
from groundkit.retrieval import Searcher


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("dataset")
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--vector-store", nargs="+", default=["exact"])
    parser.add_argument("--top-k", type=int, default=10)
    parser.add_argument("--queries", type=int, default=100)
    args = parser.parse_args()
    dataset = BeirDataset.load(args.dataset)
    queries = [text for _, text in sorted(dataset.queries.items())][: args.queries]
    name = f"beir-{dataset.root.name}"
    for store in args.vector_store:
        with Searcher.open(args.index_dir, name, vector_store=store) as retriever:
            embedder = retriever.embedder
            assert embedder is not None, "the collection has no dense side"
            stages: dict[str, list[float]] = {}
            for warm in (True, False):
                for query in queries:
                    started = time.perf_counter()
                    embedder.embed_query(query)
                    embed = (time.perf_counter() - started) * 1000
                    response = retriever.search(query, top_k=args.top_k, mode="hybrid")
                    if warm:
                        continue
                    stages.setdefault("embed", []).append(embed)
                    for stage, ms in response.metadata["timings_ms"].items():
                        stages.setdefault(stage, []).append(ms)
            shown = ", ".join(f"{k} {statistics.median(v):.2f}" for k, v in stages.items())
            print(f"{dataset.root.name} {store:<14} p50 ms: {shown}", flush=True)


if __name__ == "__main__":
    main()
