"""Typo tolerance and prefix search on BEIR sets (issue 31 item 5; ADR 0046).

    python bench/typo_prefix.py [--data ../shared/data/beir] [--work /tmp/gk-typo]
        [--datasets scifact cranfield] [--split test] [--out bench/results/typo_prefix.json]

For each dataset, BM25 nDCG@10 over the judged queries of ``--split`` (``qrels/SPLIT.tsv``;
SciFact's ``train`` holds 809 claims the test figures never saw):
  (a) each query with one deterministic typo in its longest word (a deletion, transposition,
      substitution or insertion, never the first letter), searched exactly and with ``fuzzy``;
      "recovered" is the share of the nDCG lost to the typo that fuzzy wins back;
  (b) each query's last word cut to 60% of its length, searched exactly and with ``prefix``;
  (c) queries a second and CPU milliseconds a query (``time.process_time``: what a shared
      machine's load does not inflate as much), exact against both options on, on the clean
      queries (and on the typo ones), from one run on one machine (ratios, not absolutes).
The collections are built once under ``--work`` and reused.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import re
import time
import zlib
from pathlib import Path
from typing import Any

from groundkit.evaluation.beir import BeirDataset
from groundkit.evaluation.run import build_collection, evaluate
from groundkit.store.sqlite import SqliteStore

WORD = re.compile(r"[A-Za-z]+")


def with_typo(query_id: str, text: str) -> str:
    """``text`` with one typo in its longest word of 5+ letters (the first such on a tie)."""
    words = [m for m in WORD.finditer(text) if len(m.group()) >= 5]
    if not words:
        return text
    word = max(words, key=lambda m: len(m.group()))
    letters = word.group()
    seed = zlib.crc32(query_id.encode())
    at = 1 + seed % (len(letters) - 1)  # never the first letter
    kind = (seed >> 8) % 4
    if kind == 0:
        typo = letters[:at] + letters[at + 1 :]
    elif kind == 1 and at + 1 < len(letters):
        typo = letters[:at] + letters[at + 1] + letters[at] + letters[at + 2 :]
    elif kind == 2:
        shifted = chr((ord(letters[at].lower()) - 97 + 1) % 26 + 97)
        typo = letters[:at] + shifted + letters[at + 1 :]
    else:
        inserted = chr((ord(letters[at].lower()) - 97 + 7) % 26 + 97)
        typo = letters[:at] + inserted + letters[at:]
    return text[: word.start()] + typo + text[word.end() :]


def truncated(text: str) -> str:
    """``text`` up to its last word, that word cut to 60% of its length (4+ letters only)."""
    words = list(WORD.finditer(text))
    if not words or len(words[-1].group()) < 4:
        return text
    last = words[-1]
    keep = math.ceil(0.6 * len(last.group()))
    return text[: last.start()] + last.group()[:keep]


def measure(
    dataset: BeirDataset, store: SqliteStore, sources: dict[str, str], options: dict[str, Any]
) -> dict[str, float]:
    started, cpu = time.perf_counter(), time.process_time()
    result = evaluate(dataset, store, sources, mode="bm25", search_options=options)
    elapsed, cpu = time.perf_counter() - started, time.process_time() - cpu
    queries = int(result.metrics["queries"])
    return {
        "ndcg@10": round(result.metrics["ndcg@10"], 4),
        "recall@100": round(result.metrics["recall@100"], 4),
        "queries": queries,
        "queries_per_s": round(queries / elapsed, 1),
        "cpu_ms_per_query": round(1000 * cpu / queries, 2),
    }


def run_dataset(root: Path, work: Path, split: str = "test") -> dict[str, Any]:
    dataset = BeirDataset.load(root, split)
    store = SqliteStore(work / root.name / "collection.sqlite")
    sources_file = work / root.name / "sources.json"
    if sources_file.exists():
        sources = json.loads(sources_file.read_text())
    else:
        sources = build_collection(dataset, store, work / root.name / "corpus")
        sources_file.write_text(json.dumps(sources))
    typo = dataclasses.replace(
        dataset, queries={q: with_typo(q, t) for q, t in dataset.queries.items()}
    )
    cut = dataclasses.replace(
        dataset, queries={q: truncated(t) for q, t in dataset.queries.items()}
    )
    both = {"prefix": True, "fuzzy": True}
    rows = {
        "clean exact": measure(dataset, store, sources, {}),
        "clean prefix+fuzzy": measure(dataset, store, sources, both),
        "typo exact": measure(typo, store, sources, {}),
        "typo fuzzy": measure(typo, store, sources, {"fuzzy": True}),
        "typo prefix+fuzzy": measure(typo, store, sources, both),
        "cut exact": measure(cut, store, sources, {}),
        "cut prefix": measure(cut, store, sources, {"prefix": True}),
    }
    store.close()
    lost = rows["clean exact"]["ndcg@10"] - rows["typo exact"]["ndcg@10"]
    won = rows["typo fuzzy"]["ndcg@10"] - rows["typo exact"]["ndcg@10"]
    cut_lost = rows["clean exact"]["ndcg@10"] - rows["cut exact"]["ndcg@10"]
    cut_won = rows["cut prefix"]["ndcg@10"] - rows["cut exact"]["ndcg@10"]
    changed = sum(typo.queries[q] != dataset.queries[q] for q in dataset.queries)
    return {
        "rows": rows,
        "typo_queries_changed": changed,
        "typo_recovered": round(won / lost, 3) if lost > 0 else None,
        "cut_recovered": round(cut_won / cut_lost, 3) if cut_lost > 0 else None,
        "speed_ratio_clean_both_over_exact": round(
            rows["clean prefix+fuzzy"]["queries_per_s"] / rows["clean exact"]["queries_per_s"], 3
        ),
        "examples": [
            (dataset.queries[q], typo.queries[q], cut.queries[q])
            for q in sorted(dataset.queries)[:3]
        ],
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--data",
        type=Path,
        default=Path("../shared/data/beir"),
        help="a folder of BEIR datasets, each in its own folder (default: %(default)s)",
    )
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/gk-typo"), help="where collections are kept"
    )
    parser.add_argument(
        "--datasets",
        nargs="+",
        default=["scifact", "cranfield"],
        help="the folders of --data to measure (default: scifact cranfield)",
    )
    parser.add_argument(
        "--split", default="test", help="the qrels judged (qrels/SPLIT.tsv; default: test)"
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=Path("bench/results/typo_prefix.json"),
        help="write the report here as JSON (default: %(default)s)",
    )
    args = parser.parse_args()
    report: dict[str, Any] = {}
    for name in args.datasets:
        (args.work / name).mkdir(parents=True, exist_ok=True)
        report[name] = found = run_dataset(args.data / name, args.work, args.split)
        print(f"== {name}")
        for row, values in found["rows"].items():
            print(
                f"  {row:20} nDCG@10 {values['ndcg@10']:.4f}  recall@100 "
                f"{values['recall@100']:.4f}  {values['queries_per_s']:8.1f} q/s"
            )
        rows = found["rows"]
        print(
            f"  CPU ms a query: clean exact {rows['clean exact']['cpu_ms_per_query']}, typo fuzzy "
            f"{rows['typo fuzzy']['cpu_ms_per_query']}, typo prefix+fuzzy "
            f"{rows['typo prefix+fuzzy']['cpu_ms_per_query']}"
        )
        print(
            f"  typo: {found['typo_queries_changed']} queries changed; fuzzy recovered "
            f"{found['typo_recovered']} of the nDCG lost; cut: prefix recovered "
            f"{found['cut_recovered']}; clean q/s with both on / exact: "
            f"{found['speed_ratio_clean_both_over_exact']}"
        )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
