r"""Held-out check of a collection's self-calibration (adr/0060): how many of our hand-written
off-topic questions it answers and on-topic ones it abstains on, in the collection's default
mode, once it has calibrated itself (``groundkit calibrate --self --write``).

    python bench/self_calibration.py --index-dir DIR [--collection NAME] --calibrate \
        --on bench/calibration/heldout/django-on.txt \
        --off bench/calibration/heldout/django-off.txt \
        --out bench/results/self_calibration_django.json

--calibrate runs the self-calibration and records it first (CPU time of it reported). The
questions were written before any run and were never used to choose anything; ``--on`` also
takes a BEIR folder (its judged test queries: SciFact's 300 claims). Figures: adr/0060 and
adr/0066.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import groundkit
from collection_cli import collection_parser
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import (
    off_topic_questions,
    record_self_calibration,
    self_calibrate,
)


def main() -> int:
    parser = collection_parser(__doc__)
    parser.add_argument(
        "--on", required=True, help="on-topic questions: a text file, one a line, or a BEIR folder"
    )
    parser.add_argument("--off", required=True, help="off-topic questions: a text file, one a line")
    parser.add_argument(
        "--calibrate", action="store_true", help="calibrate and record first (else: as recorded)"
    )
    parser.add_argument("--out", help="write the report here as JSON")
    args = parser.parse_args()
    report: dict[str, object] = {"collection": args.collection, "on": args.on, "off": args.off}
    if args.calibrate:
        started = time.process_time()
        with groundkit.Searcher.open(args.index_dir, args.collection) as retriever:
            result = self_calibrate(retriever)
            record_self_calibration(retriever, result)
        report["calibration"] = result.to_dict()
        report["calibration_cpu_s"] = round(time.process_time() - started, 2)
    shipped = {q.casefold() for q in off_topic_questions()}
    rows = []
    with groundkit.Searcher.open(args.index_dir, args.collection) as retriever:
        for kind, path in (("on", args.on), ("off", args.off)):
            for query in load_queries(path):
                meta = retriever.search(query, top_k=3, highlight=False)
                rows.append(
                    {
                        "kind": kind,
                        "query": query,
                        "answered": bool(meta.results),
                        "mode": meta.metadata["mode"],
                        "lexical_share": meta.metadata.get("lexical_share"),
                        "dense_best": meta.metadata.get("dense_best"),
                        "in_shipped_set": query.casefold() in shipped,
                        "top": [r.source for r in meta.results],
                    }
                )
    on = [r for r in rows if r["kind"] == "on"]
    off = [r for r in rows if r["kind"] == "off"]
    report["on_topic_abstained"] = f"{sum(not r['answered'] for r in on)}/{len(on)}"
    report["off_topic_answered"] = f"{sum(bool(r['answered']) for r in off)}/{len(off)}"
    report["queries"] = rows
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(report["on_topic_abstained"], "on-topic abstained;", report["off_topic_answered"],
          "off-topic answered", file=sys.stderr)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
