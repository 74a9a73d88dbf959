"""Candidate evidence measures for "nothing here", compared offline (adr/0071) on the features
``bench/abstain_evidence.py`` wrote: each candidate's bar is fitted by the collection's own
rule (the lowest letting through at most 14 of the 282 shipped off-topic questions,
``off_topic_bar``), then counted on the held-out sets; nothing is fitted to them.

    python bench/abstain_candidates.py /tmp/django.json [/tmp/sample.json ...] \
        [--out bench/results/abstain_candidates.json]

bm25 candidates (one value a query, higher = more evidence):
- ``share``: today's (best BM25 score / sum of the content terms' idf, adr/0060);
- ``cov_top``: the idf the best chunk matches / the sum (no tf saturation, no length norm);
- ``cov_max``: the most idf any one chunk matches / the sum;
- ``cov_top3``: the idf matched by any of the top 3 chunks / the sum;
- ``share_n``: the share times the number of distinct content terms over the median number
  of the shipped questions' (a per-length normalisation with the collection's own median);
- ``mix``: (best score + the idf it matches) / 2 / the sum.
hybrid candidates (a pair of dense floor and one share, ``hybrid_pair``; or joint):
- ``pair:<share>``: a query passes on either, half the allowance each (today: hybrid share);
- ``rank_sum:<share>``: each evidence as the share of shipped questions under it, summed;
  the bar the lowest letting 14 through (a line in rank space, no constant).
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
import statistics
from collections.abc import Callable, Sequence
from pathlib import Path

from groundkit.evaluation.self_calibration import hybrid_pair, off_topic_bar

Row = dict[str, object]
ALLOWED = 14  # floor(0.05 * 282), adr/0066


def _ideal(row: Row) -> float:
    total = 0.0
    for weight in row["idf"]:  # type: ignore[attr-defined]
        total += weight
    return total


def cov_top(row: Row) -> float:
    top, ideal = row["top"], _ideal(row)
    return top[0][1] / ideal if top and ideal > 0 else 0.0  # type: ignore[index]


def cov_max(row: Row) -> float:
    ideal = _ideal(row)
    return float(row["max_matched"]) / ideal if ideal > 0 else 0.0  # type: ignore[arg-type]


def cov_top3(row: Row) -> float:
    ideal, top = _ideal(row), row["top"]
    if not top or ideal <= 0:  # type: ignore[truthy-bool]
        return 0.0
    mask = 0
    for _, _, bits in top[:3]:  # type: ignore[index]
        mask |= bits
    unique = list(dict.fromkeys(row["content"]))  # type: ignore[call-overload]
    idf = dict(zip(row["content"], row["idf"], strict=True))  # type: ignore[call-overload]
    content = row["content"]
    got = sum(idf[t] * content.count(t) for i, t in enumerate(unique) if mask >> i & 1)  # type: ignore[attr-defined]
    return got / ideal


def mix(row: Row) -> float:
    top, ideal = row["top"], _ideal(row)
    return (top[0][0] + top[0][1]) / 2 / ideal if top and ideal > 0 else 0.0  # type: ignore[index]


def share(row: Row) -> float:
    return float(row["share"])  # type: ignore[arg-type]


BM25: dict[str, Callable[[Row], float]] = {
    "share": share,
    "cov_top": cov_top,
    "cov_max": cov_max,
    "cov_top3": cov_top3,
    "mix": mix,
}


def share_topm(row: Row, m: float) -> float:
    """The share with the ideal summed over the query's ``m`` highest-idf terms only."""
    weights = sorted(row["idf"], reverse=True)[: max(1, math.ceil(m))]  # type: ignore[call-overload]
    total = 0.0
    for weight in weights:
        total += weight
    best = row["top"][0][0] if row["top"] else 0.0  # type: ignore[index]
    return min(1.0, best / total) if total > 0 else 0.0


def _distinct(row: Row) -> int:
    return max(1, len(set(row["content"])))  # type: ignore[call-overload]


def count(values: Sequence[float], bar: float, *, on: bool) -> int:
    return sum(1 for v in values if (v < bar if on else v >= bar))


def bm25_table(data: dict[str, list[Row]]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    median_n = statistics.median(_distinct(r) for r in data["shipped"])
    measures = dict(BM25)
    measures["share_n"] = lambda r: share(r) * _distinct(r) / median_n
    measures["share_sqrt"] = lambda r: share(r) * math.sqrt(_distinct(r) / median_n)
    measures["share_topm"] = lambda r: share_topm(r, median_n)
    for name, measure in measures.items():
        values = {k: [measure(r) for r in rows] for k, rows in data.items()}
        bar = off_topic_bar(values["shipped"], ALLOWED)
        row: dict[str, object] = {"bar": round(bar, 4)}
        for key, vals in values.items():
            on = not key.startswith(("off", "shipped"))
            row[key] = f"{count(vals, bar, on=on)}/{len(vals)}"
        out[name] = row
    return out


def _rank(reference: Sequence[float]) -> Callable[[float], float]:
    ordered = sorted(reference)
    return lambda v: bisect.bisect_left(ordered, v) / len(ordered)


def hybrid_table(data: dict[str, list[Row]]) -> dict[str, dict[str, object]]:
    out: dict[str, dict[str, object]] = {}
    median_n = statistics.median(_distinct(r) for r in data["shipped"])
    shares: dict[str, Callable[[Row], float]] = {
        "hybrid_share": lambda r: float(r["hybrid_share"]),  # type: ignore[arg-type]
        **BM25,
        "share_topm": lambda r: share_topm(r, median_n),
    }
    for sname, sfun in shares.items():
        off = [(float(r["dense"]), sfun(r)) for r in data["shipped"]]  # type: ignore[arg-type]
        floor, bar = hybrid_pair(off, ALLOWED)
        row: dict[str, object] = {"floor": round(floor, 4), "bar": round(bar, 4)}
        for key, rows in data.items():
            on = not key.startswith(("off", "shipped"))
            passed = [float(r["dense"]) >= floor or sfun(r) >= bar for r in rows]  # type: ignore[arg-type]
            row[key] = f"{sum(not p for p in passed) if on else sum(passed)}/{len(rows)}"
        out[f"pair:{sname}"] = row
        dense_rank = _rank([d for d, _ in off])
        share_rank = _rank([s for _, s in off])

        def joint(r: Row, dr: Callable[[float], float] = dense_rank,
                  sr: Callable[[float], float] = share_rank, f: Callable[[Row], float] = sfun
                  ) -> float:  # fmt: skip
            return dr(float(r["dense"])) + sr(f(r))  # type: ignore[arg-type]

        jbar = off_topic_bar([joint(r) for r in data["shipped"]], ALLOWED)
        row = {"bar": round(jbar, 4)}
        for key, rows in data.items():
            on = not key.startswith(("off", "shipped"))
            row[key] = f"{count([joint(r) for r in rows], jbar, on=on)}/{len(rows)}"
        out[f"rank_sum:{sname}"] = row
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("features", nargs="+")
    parser.add_argument("--out")
    args = parser.parse_args()
    report: dict[str, object] = {}
    for path in args.features:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        name = Path(path).stem
        report[f"{name} bm25"] = bm25_table(data)
        if "dense" in data["shipped"][0]:
            report[f"{name} hybrid"] = hybrid_table(data)
    for title, table in report.items():
        print(f"== {title}")
        for cand, row in table.items():  # type: ignore[attr-defined]
            print(f"  {cand:22s}", "  ".join(f"{k}={v}" for k, v in row.items()))
    if args.out:
        Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
