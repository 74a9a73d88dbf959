"""nDCG@10 of bm25, dense and hybrid over RRF k and leg depth, on kept eval collections (adr/0025).

    .venv/bin/python bench/hybrid_grid.py --index-dir runs ../shared/data/beir/cranfield \\
        --rrf-k 10 60 100 --depth 100 1000

Each DATASET's collection must already be in INDEX_DIR (``groundkit eval DATASET --index-dir
INDEX_DIR --embedder minilm``), so nothing is embedded again. Results are ranked as
``groundkit eval --top-k TOP_K`` ranks them (10 x TOP_K results a query, scored per document);
a depth below that many results is skipped. The default, 10, asks 100 results a query, as a
search for the top 10 documents would, so depth 100 (the default leg depth) can be measured;
recall@100 needs ``--top-k 100``.
"""

from __future__ import annotations

import argparse

from groundkit.collection import collection_file, open_store
from groundkit.evaluation.beir import BeirDataset
from groundkit.evaluation.run import build_collection, evaluate
from groundkit.retrieval.request import HybridOptions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("datasets", nargs="+")
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--rrf-k", type=int, nargs="+", default=[60])
    parser.add_argument("--depth", type=int, nargs="+", default=[1000])
    parser.add_argument("--legs", action="store_true", help="also bm25 and dense alone")
    parser.add_argument("--top-k", type=int, default=10, help="documents ranked per query")
    args = parser.parse_args()
    for path in args.datasets:
        dataset = BeirDataset.load(path)
        name = f"beir-{dataset.root.name}"
        store = open_store(args.index_dir, name)
        try:
            workdir = collection_file(args.index_dir, name).parent / "corpus"
            sources = build_collection(dataset, store, workdir)  # unchanged: nothing re-done
            runs: list[tuple[str, dict[str, int]]] = []
            if args.legs:
                runs += [("bm25", {}), ("dense", {})]
            runs += [
                ("hybrid", {"hybrid": HybridOptions(rrf_k=k, depth=d)})
                for k in args.rrf_k
                for d in args.depth
                if d >= 10 * args.top_k
            ]
            for mode, options in runs:
                result = evaluate(
                    dataset,
                    store,
                    sources,
                    mode=mode,
                    top_k=args.top_k,
                    search_options=options or None,
                )
                m = result.metrics
                recall = f"recall@100 {m['recall@100']:.4f} " if args.top_k >= 100 else ""
                print(
                    f"{dataset.root.name:<10} {mode:<7} {options!s:<28} ndcg@10 {m['ndcg@10']:.4f} "
                    f"{recall}p50 {m['latency_p50_ms']:.1f} ms",
                    flush=True,
                )
        finally:
            store.close()


if __name__ == "__main__":
    main()
