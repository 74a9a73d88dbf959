"""Before/after query speed of two groundkit checkouts, in one process, pass by pass.

For a change that must not slow BM25 queries down, measured on a shared, busy machine where
wall-clock figures of separate runs swing by 2-3x: both checkouts are imported into one
process (the first one's modules are set aside before the second is imported), both index
the same prepared corpus (one ``MemoryStore``, built once), and they answer each query in
turn, alternating which goes first, so both see the same load. Each query is timed on its own
and its best time over ``--rounds`` passes kept: a query lasts tens of microseconds, so most
of its runs escape preemption, and the sum of the bests is far steadier than whole passes.
The report gives that sum, the best and the median pass, in µs a query, and after / before.
Both checkouts must return identical keys and scores.

Run after ``bench/bm25_speed.py --workdir DIR`` has prepared the corpora::

    .bench/bin/python bench/bm25_ab.py --workdir DIR --before ../base --after . cranfield scifact
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bm25_speed


def _import_tree(tree: Path) -> dict[str, Any]:
    """groundkit's ``BM25Index``, ``BM25Params`` and ``CachedTieKeys`` from ``tree``'s core."""
    for name in [name for name in sys.modules if name.split(".")[0] == "groundkit"]:
        del sys.modules[name]  # objects already made keep their own modules alive
    sys.path.insert(0, str(tree / "core"))
    try:
        from groundkit.config import BM25Params
        from groundkit.index.bm25 import BM25Index
        from groundkit.index.ties import CachedTieKeys
    finally:
        sys.path.pop(0)
    found = Path(sys.modules["groundkit"].__file__ or "").resolve()
    if tree.resolve() not in found.parents:
        raise SystemExit(f"imported {found}, not from {tree}")
    return {"BM25Index": BM25Index, "BM25Params": BM25Params, "CachedTieKeys": CachedTieKeys}


def measure(
    folder: Path, trees: dict[str, Path], ks: list[int], rounds: int, accelerators: list[str]
) -> None:
    from groundkit.analysis.analyzer import Analyzer
    from groundkit.store import MemoryStore

    tokens, _, queries = bm25_speed._load_tokens(folder)
    texts = bm25_speed._load_docs(folder)["texts"]
    store = MemoryStore("ab")
    bm25_speed._write_documents(store, texts, tokens, Analyzer().identity)
    reader = store.reader()
    n = len(queries)
    print(f"== {folder.name}: {len(texts):,} chunks, {n} queries; µs a query, {rounds} passes each")
    print(f"{'path':8s} {'k':>5s} {'side':7s} {'query bests':>11s} {'best pass':>10s}", end="")
    print(f" {'median pass':>12s}")
    sides: dict[str, dict[str, Any]] = {}
    for label, tree in trees.items():
        api = _import_tree(tree)
        params = api["BM25Params"](k1=bm25_speed.K1, b=bm25_speed.B)
        sides[label] = {
            accelerator: (api["BM25Index"](reader, params, accelerator=accelerator), api)
            for accelerator in accelerators
        }
    for accelerator in accelerators:
        for k in ks:
            kk = min(k, len(texts))
            runs: dict[str, Callable[[], list[Any]]] = {}
            ties: dict[str, Any] = {}
            for label in trees:
                index, api = sides[label][accelerator]
                tie_keys = ties[label] = api["CachedTieKeys"].of(reader)

                def one_pass(
                    index: Any = index, tie_keys: Any = tie_keys, kk: int = kk
                ) -> list[Any]:
                    return [index.top_k(query, kk, tie_keys) for query in queries]

                runs[label] = one_pass
            answers = {label: run() for label, run in runs.items()}  # warm, and compare
            for run in runs.values():
                run()
            first, second = (
                [(list(h.keys), list(h.scores)) for h in answers[label]] for label in trees
            )
            if first != second:
                raise SystemExit(f"{folder.name} {accelerator} k={k}: the two differ")
            best = {label: [math.inf] * n for label in trees}
            passes: dict[str, list[float]] = {label: [] for label in trees}
            order = list(trees)
            for _ in range(rounds):
                spent = dict.fromkeys(trees, 0.0)
                for at, query in enumerate(queries):
                    for label in order:
                        index, tie_keys = sides[label][accelerator][0], ties[label]
                        started = time.perf_counter()
                        index.top_k(query, kk, tie_keys)
                        took = time.perf_counter() - started
                        spent[label] += took
                        best[label][at] = min(best[label][at], took)
                    order.reverse()  # neither side always runs second
                for label in trees:
                    passes[label].append(spent[label])
            for label in trees:
                print(
                    f"{accelerator:8s} {kk:5d} {label:7s} {sum(best[label]) / n * 1e6:11.1f} "
                    f"{min(passes[label]) / n * 1e6:10.1f} "
                    f"{statistics.median(passes[label]) / n * 1e6:12.1f}"
                )
            before, after = (sum(best[label]) for label in trees)
            print(f"{'':8s} {'':5s} after / before (sum of per-query bests): {after / before:.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", help="names prepared under --workdir")
    parser.add_argument("--workdir", type=Path, required=True, help="bm25_speed.py's --workdir")
    parser.add_argument("--before", type=Path, required=True, help="a groundkit checkout")
    parser.add_argument("--after", type=Path, required=True, help="another groundkit checkout")
    parser.add_argument("--k", type=int, nargs="*", default=[10, 1000])
    parser.add_argument("--rounds", type=int, default=15, help="timed passes per side")
    parser.add_argument(
        "--accelerators", nargs="*", default=["python", "numpy"], choices=["python", "numpy"]
    )
    args = parser.parse_args()
    trees = {"before": args.before, "after": args.after}
    _import_tree(args.after)  # the store and the corpus loader come from the newer code
    for name in args.corpora:
        folder = args.workdir / name
        if not (folder / "tokens.pkl").exists():
            parser.error(f"{folder} is not prepared: run bench/bm25_speed.py --workdir first")
        measure(folder, trees, args.k, args.rounds, args.accelerators)


if __name__ == "__main__":
    main()
