"""CPU time of a query with typos against a clean one, warm, on the search-box sets (issue 40).

    python bench/typo_cost.py [--work bench/.bench/search_box] [--every 8] [--rounds 5]
        [--out bench/results/typo_cost.json]

Uses the collections ``bench/search_box.py`` built under ``--work``: every ``--every``-th
Django section title and SciFact claim, clean and with one or two typos (the same seeded edits,
seed 40), searched bm25 with ``top_k`` 30 after one warm-up round (tables built, postings
read); CPU milliseconds a query (``time.process_time``, the median of ``--rounds`` rounds over
the whole set), so a shared machine's load inflates them less than wall time would.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import groundkit

sys.path.insert(0, str(Path(__file__).resolve().parent))
import search_box as sb  # the bench's own sets

Rows = list[tuple[str, dict[str, bool]]]
BOTH = {"prefix": True, "fuzzy": True}


def queries(name: str, work: Path, data: Path, every: int) -> dict[str, str]:
    if name == "django":
        _, texts = sb.django_corpus(work)
        return {f"h{i}": t for i, t in enumerate(sb.rst_headings(texts)[::every])}
    with open(data / "queries.jsonl", encoding="utf-8") as lines:
        claims = [json.loads(line) for line in lines][::every]
    return {c["_id"]: c["text"] for c in claims}


def search(searcher: groundkit.Searcher, text: str, options: dict[str, bool]) -> None:
    prefix, fuzzy = options.get("prefix", False), options.get("fuzzy", False)
    searcher.search(text, top_k=30, mode="bm25", highlight=False, prefix=prefix, fuzzy=fuzzy)


def measure(searcher: groundkit.Searcher, rows: Rows, rounds: int) -> float:
    spent = []
    for _ in range(rounds):
        started = time.process_time()
        for text, options in rows:
            search(searcher, text, options)
        spent.append(1000 * (time.process_time() - started) / len(rows))
    return round(statistics.median(spent), 3)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=sb.REPO / "bench" / ".bench" / "search_box")
    parser.add_argument("--data", type=Path, default=Path("/work/shared/data/beir/scifact"))
    parser.add_argument("--every", type=int, default=8)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument(
        "--out", type=Path, default=sb.REPO / "bench" / "results" / "typo_cost.json"
    )
    args = parser.parse_args()
    report: dict[str, Any] = {}
    for name in ("django", "scifact"):
        found = queries(name, args.work, args.data, args.every)
        typo1 = [t for q, c in found.items() if (t := sb.one_typo(q, c))]
        typo2 = [t for q, c in found.items() if (t := sb.two_typos(q, c))]
        sets: dict[str, Rows] = {
            "clean exact": [(c, {}) for c in found.values()],
            "clean prefix+fuzzy": [(c, BOTH) for c in found.values()],
            "typo1 fuzzy": [(t, {"fuzzy": True}) for t in typo1],
            "typo1 prefix+fuzzy": [(t, BOTH) for t in typo1],
            "typo2 prefix+fuzzy": [(t, BOTH) for t in typo2],
        }
        with groundkit.Searcher.open(args.work / f"{name}-index") as searcher:
            searcher.warm()
            for rows in sets.values():
                for text, options in rows:
                    search(searcher, text, options)
            ms = {key: measure(searcher, rows, args.rounds) for key, rows in sets.items()}
        ratios = {
            "typo1 prefix+fuzzy / clean prefix+fuzzy": ms["typo1 prefix+fuzzy"]
            / ms["clean prefix+fuzzy"],
            "typo1 fuzzy / clean exact": ms["typo1 fuzzy"] / ms["clean exact"],
        }
        report[name] = {
            "queries": len(found),
            "cpu_ms_per_query": ms,
            "ratios": {key: round(value, 2) for key, value in ratios.items()},
        }
        print(name, json.dumps(report[name]), flush=True)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n", "utf-8")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
