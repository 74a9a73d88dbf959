"""Whether two checkouts answer a BEIR query set identically: ids, ranks and score bits.

    python bench/same_answers.py --before /tmp/base --after . \
        --collection /work/idx-minilm/beir-scifact --queries ../shared/data/beir/scifact

Each checkout runs in a fresh process (``PYTHONPATH=CHECKOUT/core``) and searches every query
in each mode (``bm25``, and ``--prefix``/``--fuzzy`` runs of it; ``dense`` and ``hybrid`` where
the collection has a semantic embedder, or any embedder with ``--every-mode``), writing
(chunk id, ``float.hex`` score) per result. The two outputs must be equal; the first
differences are printed. For a refactor that must not change results (issue 33, issue 41).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys
from groundkit.evaluation.beir import BeirDataset
import groundkit.retrieval as retrieval
from groundkit.store.sqlite import SqliteReader
collection, data, every_mode = sys.argv[1], sys.argv[2], sys.argv[3] == "1"
queries = sorted(BeirDataset.load(data).queries.items())
out = {}
# Searcher.of (adr/0063) after, Retriever(reader) before: the same search either way
open_view = getattr(retrieval.Searcher, "of", None) or getattr(retrieval, "Retriever")
with open_view(SqliteReader(f"{collection}/collection.sqlite")) as retriever:
    runs = [("bm25", {}), ("bm25", {"prefix": True}), ("bm25", {"fuzzy": True})]
    if retriever.default_mode == "hybrid" or every_mode:
        runs += [("dense", {}), ("hybrid", {})]
    for mode, options in runs:
        name = mode + "".join(f"+{key}" for key in options)
        answers = out[name] = {}
        for qid, text in queries:
            response = retriever.search(text, 20, mode, **options)
            answers[qid] = [[r.chunk_id, r.score.hex()] for r in response.results]
print(json.dumps(out, sort_keys=True))
"""


def answers(
    checkout: Path, collection: Path, data: Path, every_mode: bool
) -> dict[str, dict[str, list[object]]]:
    env = {**os.environ, "PYTHONPATH": str(checkout.resolve() / "core")}
    command = [sys.executable, "-c", CHILD, str(collection), str(data), str(int(every_mode))]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        sys.exit(f"{checkout}: exited {done.returncode}\n{done.stderr[-3000:]}")
    found: dict[str, dict[str, list[object]]] = json.loads(done.stdout)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--before", type=Path, required=True, help="the checkout before")
    parser.add_argument("--after", type=Path, default=Path("."), help="the checkout after")
    parser.add_argument("--collection", type=Path, required=True, help="a collection folder")
    parser.add_argument("--queries", type=Path, required=True, help="its BEIR dataset folder")
    parser.add_argument(
        "--every-mode",
        action="store_true",
        help="also dense and hybrid where the embedder is not semantic (hash: a test of the path)",
    )
    args = parser.parse_args()
    print(f"{args.before} ...", file=sys.stderr)
    before = answers(args.before, args.collection, args.queries, args.every_mode)
    print(f"{args.after} ...", file=sys.stderr)
    after = answers(args.after, args.collection, args.queries, args.every_mode)
    differences = [
        f"{run} {qid}: {before[run][qid][:3]} != {after.get(run, {}).get(qid, [])[:3]}"
        for run in sorted(before)
        for qid in sorted(before[run])
        if before[run][qid] != after.get(run, {}).get(qid)
    ]
    counted = {run: len(queries) for run, queries in before.items()}
    print(f"runs (queries): {counted}")
    if differences or sorted(before) != sorted(after):
        per_run = {run: sum(d.startswith(f"{run} ") for d in differences) for run in sorted(before)}
        print(f"DIFFERENT: {len(differences)} answers ({per_run})", *differences[:20], sep="\n")
        sys.exit(1)
    print("identical: every id, rank and score bit")


if __name__ == "__main__":
    main()
