"""One dense floor for an embedder, measured on several collections at once (adr/0024).

    .venv/bin/python bench/dense_floor.py --out runs/floor.json \\
        cranfield=IDX:beir-cranfield:../shared/data/beir/cranfield:../shared/data/beir/scifact \\
        scifact=IDX:beir-scifact:../shared/data/beir/scifact:../shared/data/beir/cranfield

Each PAIR is ``name=INDEX_DIR:COLLECTION:ON_TOPIC:OFF_TOPIC`` (query sources as for
``groundkit calibrate``). For each it takes every query's best dense similarity and whether BM25
matches anything, then picks the floor (a 0.005 grid) minimising the summed false-abstention +
false-answer rates over the pairs, and prints each pair's rates there for dense (abstain when the
best similarity is under the floor) and hybrid (abstain when, besides, BM25 matches nothing).
``--out`` keeps the raw values; with ``--reuse``, pairs already in it are not searched again.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from groundkit.evaluation.floor_calibration import best_similarities, choose_floor, load_queries
from groundkit.retrieval import Searcher


def measure(spec: str) -> dict[str, object]:
    index_dir, collection, on_source, off_source = spec.split(":")
    out: dict[str, object] = {}
    with Searcher.open(index_dir, collection) as retriever:
        for side, source in (("on", on_source), ("off", off_source)):
            queries = load_queries(source)
            out[side] = best_similarities(retriever, queries)
            out[side + "_bm25"] = [
                retriever.search(q, top_k=1, mode="bm25", highlight=False).total_results > 0
                for q in queries
            ]
    return out


def rates(data: dict[str, list[float]], floor: float, hybrid: bool) -> tuple[float, float]:
    on, off = data["on"], data["off"]
    lexical_on = data["on_bm25"] if hybrid else [False] * len(on)
    lexical_off = data["off_bm25"] if hybrid else [False] * len(off)
    abstain = sum(s < floor and not b for s, b in zip(on, lexical_on, strict=True)) / len(on)
    answer = sum(s >= floor or b for s, b in zip(off, lexical_off, strict=True)) / len(off)
    return abstain, answer


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("pairs", nargs="+", metavar="NAME=SPEC")
    parser.add_argument("--out", type=Path, default=None)
    parser.add_argument("--reuse", action="store_true")
    args = parser.parse_args()
    kept = json.loads(args.out.read_text()) if args.reuse and args.out and args.out.exists() else {}
    data = {}
    for pair in args.pairs:
        name, spec = pair.split("=", 1)
        data[name] = kept[name] if name in kept else measure(spec)
        print(f"measured {name}", flush=True)
        if args.out:
            args.out.write_text(json.dumps({**kept, **data}))
    grid = [round(0.2 + 0.005 * i, 3) for i in range(81)]
    totals = {f: sum(sum(rates(d, f, hybrid=False)) for d in data.values()) for f in grid}
    lowest = min(totals.values())
    tied = [f for f in grid if totals[f] == lowest]
    pooled = tied[len(tied) // 2]
    print(f"pooled floor {pooled} (summed error {lowest:.4f}; tied {tied[0]}..{tied[-1]})")
    print("pair        own-floor  dense FA/FAns at pooled   hybrid FA/FAns at pooled")
    for name, d in data.items():
        own = choose_floor(d["on"], d["off"])
        da, dn = rates(d, pooled, hybrid=False)
        ha, hn = rates(d, pooled, hybrid=True)
        print(f"{name:<12}{own:<11}{da:.4f} / {dn:.4f}            {ha:.4f} / {hn:.4f}")


if __name__ == "__main__":
    main()
