"""Does hybrid search say "nothing here" to questions its collection cannot answer (adr/0049)?

    python bench/hybrid_abstention.py --out bench/results/hybrid_abstention.json \\
        sample=IDX:sample:bench/calibration/sample-on-topic.txt:bench/calibration/off-topic.txt \\
        scifact=IDX:beir-scifact:../shared/data/beir/scifact:bench/calibration/off-topic.txt \\
        cranfield=IDX:beir-cranfield:../shared/data/beir/cranfield:bench/calibration/off-topic.txt

Each PAIR is ``name=INDEX_DIR:COLLECTION:ON_TOPIC:OFF_TOPIC`` (query sources as for
``groundkit calibrate``: a text file, one query a line, or a BEIR folder's queries). Every query
is searched once in hybrid mode with no lexical requirement; its trace gives the best dense
similarity and BM25's share of the query's ideal score. The script prints, for the collection's
floor and a grid of minimum shares, how often hybrid answers an off-topic query (false answer)
and abstains on an on-topic one (false abstention), and what the rule of adr/0008 (abstain only
when BM25 matches nothing) gave.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from groundkit.evaluation.floor_calibration import load_queries
from groundkit.retrieval import HybridOptions, Searcher
from groundkit.retrieval.abstention import DEFAULT_MIN_LEXICAL_SHARE

SHARES = (0.0, 0.15, 0.2, 0.24, 0.25, 0.3, 0.4, 0.5)


def measure(spec: str) -> dict[str, Any]:
    index_dir, collection, on_source, off_source = spec.split(":")
    out: dict[str, Any] = {}
    with Searcher.open(index_dir, collection) as retriever:
        options = HybridOptions(min_lexical_share=0.0)
        for side, source in (("on", on_source), ("off", off_source)):
            rows = []
            for query in load_queries(source):
                meta = retriever.search(
                    query, top_k=1, mode="hybrid", hybrid=options, highlight=False
                ).metadata
                rows.append(
                    {
                        "query": query,
                        "dense_best": meta["dense_best"],
                        "share": meta["lexical_share"],
                        "bm25": meta["legs"]["bm25"] > 0,
                        "floor": meta["min_similarity"],
                    }
                )
            out[side] = rows
    return out


def answers(row: dict[str, Any], share: float | None) -> bool:
    """Whether hybrid answers: dense evidence, else BM25 at ``share`` (None: any BM25 match)."""
    if row["dense_best"] is not None and row["dense_best"] >= row["floor"]:
        return True
    return row["bm25"] and (share is None or row["share"] >= share)


def rates(data: dict[str, Any], share: float | None) -> dict[str, Any]:
    on, off = data["on"], data["off"]
    abstained = sum(not answers(row, share) for row in on)
    answered = sum(answers(row, share) for row in off)
    return {
        "false_abstention": f"{abstained}/{len(on)}",
        "false_answer": f"{answered}/{len(off)}",
        "rate_sum": round(abstained / len(on) + answered / len(off), 4),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("pairs", nargs="+", metavar="NAME=INDEX:COLLECTION:ON:OFF")
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    report: dict[str, Any] = {}
    for pair in args.pairs:
        name, spec = pair.split("=", 1)
        data = measure(spec)
        table = {"any bm25 match (adr/0008)": rates(data, None)}
        table.update({f"share >= {share}": rates(data, share) for share in SHARES})
        report[name] = {"rates": table, "queries": data}
        print(f"== {name} (floor {data['on'][0]['floor']})")
        for rule, values in table.items():
            print(
                f"  {rule:28} false abstention {values['false_abstention']:>8}  "
                f"false answer {values['false_answer']:>8}"
            )
        missed = [r for r in data["on"] if not answers(r, DEFAULT_MIN_LEXICAL_SHARE)]
        for row in missed[:5]:
            print(f"    abstains on: {row['query'][:70]!r} dense {row['dense_best']:.3f} "
                  f"share {row['share']:.3f}")  # fmt: skip
        wrong = [r for r in data["off"] if answers(r, DEFAULT_MIN_LEXICAL_SHARE)]
        for row in wrong[:5]:
            print(f"    answers: {row['query'][:70]!r} dense {row['dense_best']:.3f} "
                  f"share {row['share']:.3f}")  # fmt: skip
    if args.out is not None:
        args.out.parent.mkdir(parents=True, exist_ok=True)
        args.out.write_text(json.dumps(report, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
