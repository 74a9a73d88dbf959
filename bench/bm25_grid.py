"""nDCG@10 of BM25 over a (k1, b) grid on every BEIR dataset under ../shared/data/beir.

    python bench/bm25_grid.py                    # all datasets, porter and snowball-english
    python bench/bm25_grid.py --stemmer porter --k1 0.9 1.2 --b 0.4 0.75

Each dataset is ingested once per stemmer (whole documents, title + text), then every grid point
is searched against the same snapshot. Used to choose the defaults in adr/0004-bm25-defaults.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import BM25Params
from groundkit.evaluation.beir import BeirDataset
from groundkit.evaluation.run import build_collection, evaluate
from groundkit.store import MemoryStore

DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--stemmer", nargs="*", default=["porter", "snowball-english"])
    parser.add_argument("--k1", type=float, nargs="*", default=[0.6, 0.9, 1.2, 1.5])
    parser.add_argument("--b", type=float, nargs="*", default=[0.3, 0.4, 0.5, 0.6, 0.75])
    args = parser.parse_args()
    names = args.datasets or sorted(p.name for p in args.data.iterdir() if p.is_dir())
    table: dict[str, dict[str, float]] = {}
    for name in names:
        dataset = BeirDataset.load(args.data / name)
        for stemmer in args.stemmer:
            store = MemoryStore(name)
            with tempfile.TemporaryDirectory() as tmp:
                sources = build_collection(
                    dataset, store, Path(tmp), analyzer=Analyzer(stemmer=stemmer)
                )
            for k1 in args.k1:
                for b in args.b:
                    result = evaluate(dataset, store, sources, bm25=BM25Params(k1=k1, b=b))
                    key = f"{name} {stemmer} k1={k1} b={b}"
                    table[key] = result.metrics
                    print(f"{key:<48} ndcg@10 {result.metrics['ndcg@10']:.4f}", file=sys.stderr)
    print(json.dumps(table, indent=2))


if __name__ == "__main__":
    main()
