r"""Hybrid's allowance of the shipped off-topic questions, measured on held-out sets (adr/0084).

    python bench/hybrid_allowance.py --index-dir DIR [--collection NAME] \
        --allowance 0.05 0.025 \
        --set set5=HELDOUT/scifact-on-5.txt,HELDOUT/scifact-off-5.txt \
        [--set claims=../shared/data/beir/scifact,] [--mode dense] [--out F]

For each allowance the collection's floor and hybrid share are chosen as its self-calibration
chooses them (``hybrid_pair`` over the shipped questions' hybrid evidence, which is measured
once), recorded, and every set's questions searched in the collection's default mode as
``groundkit search`` does (``--mode``: in that mode instead; dense applies the same recorded
floor): on-topic abstained and off-topic answered (HELDOUT: ``bench/calibration/heldout``).
A set's on-topic or off-topic side may be empty (``claims=DIR,``: a BEIR folder's judged
test queries, on-topic only). The record found at the start is written back at the end,
whatever happens (none: the one written is removed).
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import Any

import groundkit
from collection_cli import collection_parser, emit
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import hybrid_evidence, hybrid_pair, off_topic_questions
from groundkit.retrieval import SearchMode
from groundkit.retrieval.floor import FloorRecord, read_floor, write_floor


def _sets(specs: list[str]) -> list[tuple[str, list[str], list[str]]]:
    found = []
    for spec in specs:
        name, _, paths = spec.partition("=")
        on_path, _, off_path = paths.partition(",")
        if not name or not (on_path or off_path):
            raise SystemExit(f"--set {spec!r}: expected NAME=ON[,OFF]")
        on = load_queries(on_path) if on_path else []
        off = load_queries(off_path) if off_path else []
        found.append((name, on, off))
    return found


def _measure(
    retriever: groundkit.Searcher, queries: list[str], mode: SearchMode | None
) -> list[dict[str, Any]]:
    rows = []
    for query in queries:
        response = retriever.search(query, top_k=1, mode=mode, highlight=False)
        meta = response.metadata
        rows.append(
            {
                "query": query,
                "answered": bool(response.results),
                "dense_best": meta.get("dense_best"),
                "lexical_share": meta.get("lexical_share"),
            }
        )
    return rows


def main() -> int:
    parser = collection_parser(__doc__)
    parser.add_argument(
        "--allowance", type=float, nargs="+", default=[0.05, 0.025],
        help="shares of the shipped off-topic questions hybrid may answer (default: .05 .025)",
    )  # fmt: skip
    parser.add_argument(
        "--set", action="append", default=[], metavar="NAME=ON[,OFF]",
        help="a held-out set: on-topic and off-topic question files (or a BEIR folder)",
    )  # fmt: skip
    parser.add_argument(
        "--mode", choices=["dense", "hybrid"], help="search mode (default: the collection's)"
    )
    parser.add_argument("--out", help="write the report here as JSON")
    args = parser.parse_args()
    sets = _sets(args.set)
    report: dict[str, Any] = {
        "collection": args.collection,
        "mode": args.mode or "the collection's",
        "allowances": {},
    }
    with groundkit.Searcher.open(args.index_dir, args.collection) as retriever:
        embedder = retriever.embedder
        if embedder is None or not embedder.identity.semantic:
            raise SystemExit("the collection has no semantic embedder: hybrid has no allowance")
        location = retriever.readers[0].location
        before = read_floor(location, embedder.identity)
        shipped = off_topic_questions()
        evidence = hybrid_evidence(retriever, shipped)
        print(f"measured {len(shipped)} shipped questions", file=sys.stderr)
        written: Path | None = None
        try:
            for allowance in args.allowance:
                allowed = math.floor(allowance * len(shipped))
                floor, share = hybrid_pair(evidence, allowed)
                measured = {"source": "self", "allowance": allowance}
                record = FloorRecord(floor, embedder.identity, measured, share)
                written = write_floor(location, record)
                result: dict[str, Any] = {"floor": floor, "share": share, "allowed": allowed}
                for name, on, off in sets:
                    on_rows = _measure(retriever, on, args.mode)
                    off_rows = _measure(retriever, off, args.mode)
                    abstained = sum(not row["answered"] for row in on_rows)
                    answered = sum(row["answered"] for row in off_rows)
                    result[name] = {
                        "on_topic_abstained": f"{abstained}/{len(on_rows)}",
                        "off_topic_answered": f"{answered}/{len(off_rows)}",
                        "off_topic_answered_queries": [
                            [row["query"], row["dense_best"], row["lexical_share"]]
                            for row in off_rows
                            if row["answered"]
                        ],
                    }
                    print(
                        f"allowance {allowance} (floor {floor:.3f}, share {share:.3f}) set "
                        f"{name}: on-topic abstained {abstained}/{len(on_rows)}, off-topic "
                        f"answered {answered}/{len(off_rows)}",
                        file=sys.stderr,
                    )
                report["allowances"][str(allowance)] = result
        finally:
            if before is not None:
                write_floor(location, before)
            elif written is not None:
                written.unlink()
    emit(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
