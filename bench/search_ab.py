"""Exact BM25 ``Searcher.search`` speed of two checkouts on the same collections, interleaved.

    python bench/search_ab.py --before /tmp/base --after . --work /tmp/gk-typo --rounds 3

``--work`` holds the collections ``bench/typo_prefix.py`` built (``NAME/collection.sqlite``).
Each round runs a fresh process per checkout (``PYTHONPATH=CHECKOUT/core``), before first, then
after; each process opens the collection, warms it (``Searcher.warm()``, as a server does),
runs every judged query once, then times three passes (top 100, no highlights). Prints
queries a second per round and the median ratio after / before. For a change that must not
slow exact search down (issue 31: prefix and fuzzy off).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time
from groundkit.evaluation.beir import BeirDataset
import groundkit.retrieval as retrieval
from groundkit.store.sqlite import SqliteReader
work, data, names = sys.argv[1], sys.argv[2], sys.argv[3:]
out = {}
for name in names:
    queries = [t for _, t in sorted(BeirDataset.load(f"{data}/{name}").queries.items())]
    # Searcher.of (adr/0063) after, Retriever(reader) before: the same search either way
    open_view = getattr(retrieval.Searcher, "of", None) or getattr(retrieval, "Retriever")
    with open_view(SqliteReader(f"{work}/{name}/collection.sqlite")) as retriever:
        retriever.warm()
        for query in queries:
            retriever.search(query, 100, "bm25", highlight=False)
        started = time.perf_counter()
        for _ in range(3):
            for query in queries:
                retriever.search(query, 100, "bm25", highlight=False)
        out[name] = 3 * len(queries) / (time.perf_counter() - started)
print(json.dumps(out))
"""


def run(checkout: Path, work: Path, data: Path, names: list[str]) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(checkout / "core")}
    command = [sys.executable, "-c", CHILD, str(work), str(data), *names]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    found: dict[str, float] = json.loads(done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True)
    parser.add_argument("--after", type=Path, default=Path("."))
    parser.add_argument("--work", type=Path, default=Path("/tmp/gk-typo"))
    parser.add_argument("--data", type=Path, default=Path("../shared/data/beir"))
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("names", nargs="*", default=["scifact", "cranfield"])
    args = parser.parse_args()
    ratios: dict[str, list[float]] = {name: [] for name in args.names}
    for round_ in range(1, args.rounds + 1):
        before = run(args.before.resolve(), args.work, args.data.resolve(), args.names)
        after = run(args.after.resolve(), args.work, args.data.resolve(), args.names)
        for name in args.names:
            ratios[name].append(after[name] / before[name])
            print(f"round {round_} {name:10} before {before[name]:8.1f} q/s  after "
                  f"{after[name]:8.1f} q/s")  # fmt: skip
    for name, found in ratios.items():
        print(f"{name}: after / before, median of {len(found)}: {statistics.median(found):.3f}")


if __name__ == "__main__":
    main()
