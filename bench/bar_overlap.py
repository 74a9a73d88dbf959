r"""Whether any bar on bm25's evidence could meet issue 40's "off-topic answered <= 2/20 with
on-topic abstained <= 1/20" on each held-out set (adr/0084).

    python bench/bar_overlap.py --index-dir DIR --sets bench/calibration/heldout/sample \
        [--collection NAME] [--out F]

``--sets PREFIX`` reads PREFIX-on.txt and PREFIX-off.txt, then PREFIX-on-N.txt and
PREFIX-off-N.txt for N = 2, 3, ... while both exist. Each question is searched as
``groundkit search`` does (the collection's calibrated bar, adr/0072) and once with the bar at
0, for its share (adr/0060, adr/0071). A question the search stops for naming a thing the
collection lacks (``absent_name``, adr/0080) is stopped at any bar over 0.

Per set: what the calibrated bar does (the collection's bm25 bar, which must separate); the
lowest bar that answers at most 2 off-topic questions and how many on-topic ones it abstains
on; the highest bar that abstains on at most 1 on-topic question and how many off-topic ones
it answers. Where both miss, no bar on the share meets the set, even one chosen with the
answers in hand.

It then asks the same of three more features of the words, each as a second bar beside the
share (abstain where either is under its bar), both bars chosen over every set at once with
the answers in hand: the share of the pairs of the query's evidence terms that some passage
holds together, the lowest normalised PMI of such a pair, and the share of the evidence terms
the passage holding most of them holds. These read the index's postings, which no public API
gives, so this script reaches into the searcher's scorer: it measures, it is not an example.
"""

from __future__ import annotations

import itertools
import json
import math
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import groundkit
from collection_cli import collection_parser, emit
from groundkit.analysis.question_words import content_terms
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.retrieval.abstention import EVIDENCE_TERMS
from groundkit.retrieval.lexical_bar import read_lexical_bar

ON_ABSTAINED = 1
OFF_ANSWERED = 2


def _set_files(prefix: str) -> list[tuple[str, Path, Path]]:
    found = []
    for n in itertools.count(1):
        tail = "" if n == 1 else f"-{n}"
        on, off = Path(f"{prefix}-on{tail}.txt"), Path(f"{prefix}-off{tail}.txt")
        if not (on.exists() and off.exists()):
            break
        found.append((str(n), on, off))
    return found


def _features(retriever: groundkit.Searcher, query: str) -> dict[str, float]:
    """The three word features of the module docstring, over the query's evidence terms."""
    execution = retriever._execution  # the postings: see the module docstring
    index = execution.transport.scorers[0]._lexical
    terms = content_terms(retriever.analyzer.terms(query), retriever.question_terms())
    ranked = sorted(dict.fromkeys(terms), key=lambda term: (-index.term_idf(term), term))
    evidence = ranked[:EVIDENCE_TERMS]
    keys = {term: set(index.keys(term)) for term in evidence if index.df(term)}
    pairs = list(itertools.combinations(sorted(keys), 2))
    together = [len(keys[a] & keys[b]) for a, b in pairs]
    chunks = index.chunk_count
    npmi = [
        -1.0
        if not both
        else 1.0
        if both == chunks  # every chunk holds both: as together as a pair can be
        else math.log(both * chunks / (len(keys[a]) * len(keys[b]))) / -math.log(both / chunks)
        for (a, b), both in zip(pairs, together, strict=True)
    ]
    held = Counter(key for found in keys.values() for key in found)
    return {
        "pairs": sum(1 for both in together if both) / len(pairs) if pairs else 1.0,
        "npmi": min(npmi, default=1.0),
        "cover": max(held.values(), default=0) / len(evidence) if evidence else 0.0,
    }


def _row(retriever: groundkit.Searcher, query: str) -> dict[str, Any]:
    searched = retriever.search(query, top_k=1, mode="bm25", highlight=False)
    share = retriever.search(query, top_k=1, mode="bm25", highlight=False, lexical_bar=0.0)
    return {
        "query": query,
        "answered": bool(searched.results),
        "share": share.metadata.get("lexical_share") or 0.0,
        "absent_name": searched.metadata.get("absent_name"),
        **_features(retriever, query),
    }


def _abstains(row: dict[str, Any], share: float, feature: str = "", bar: float = -2.0) -> bool:
    return (
        bool(row["absent_name"]) or row["share"] < share or (bool(feature) and row[feature] < bar)
    )


def _per_set(on: list[dict[str, Any]], off: list[dict[str, Any]], bar: float) -> dict[str, Any]:
    named = sum(1 for row in on if row["absent_name"])  # abstained at any bar over 0
    on_shares = sorted(row["share"] for row in on if not row["absent_name"])
    off_shares = sorted((row["share"] for row in off if not row["absent_name"]), reverse=True)
    lowest = off_shares[OFF_ANSWERED] if len(off_shares) > OFF_ANSWERED else 0.0
    highest = on_shares[ON_ABSTAINED - named] if named <= ON_ABSTAINED else 0.0
    return {
        "at_the_bar": {
            "on_topic_abstained": sum(not row["answered"] for row in on),
            "off_topic_answered": sum(row["answered"] for row in off),
        },
        "off_at_most_2": {
            "bar_over": round(lowest, 4),
            "on_topic_abstained": named + sum(1 for share in on_shares if share <= lowest),
        },
        "on_at_most_1": {
            "bar_at_most": round(highest, 4),
            "off_topic_answered": sum(1 for share in off_shares if share >= highest)
            if named <= ON_ABSTAINED
            else None,  # no bar abstains on at most one
        },
        "on_topic": [[row["query"], round(row["share"], 3)] for row in on if _abstains(row, bar)],
        "off_topic": [
            [row["query"], round(row["share"], 3)] for row in off if not _abstains(row, bar)
        ],
    }


def _second_bar(sets: dict[str, tuple[list[Any], list[Any]]], feature: str) -> dict[str, Any]:
    """The pair of bars (share, feature) that meets the most sets, then errs least in all
    (``feature`` "": the share's bar alone)."""
    rows = [row for on, off in sets.values() for row in (*on, *off)]
    shares = sorted({row["share"] for row in rows} | {0.0})
    values = sorted({row[feature] for row in rows} | {-2.0}) if feature else [-2.0]
    best: tuple[tuple[int, int], float, float] | None = None
    for share, bar in itertools.product(shares, values):
        missed = errors = 0
        for on, off in sets.values():
            abstained = sum(_abstains(row, share, feature, bar) for row in on)
            answered = sum(not _abstains(row, share, feature, bar) for row in off)
            missed += abstained > ON_ABSTAINED or answered > OFF_ANSWERED
            errors += abstained + answered
        if best is None or (missed, errors) < best[0]:
            best = ((missed, errors), share, bar)
    assert best is not None
    (missed, errors), share, bar = best
    return {"sets_missed": missed, "errors": errors, "share": share, feature or "none": bar}


def main() -> int:
    parser = collection_parser(__doc__)
    parser.add_argument("--sets", required=True, help="PREFIX of the held-out question files")
    parser.add_argument("--out", help="write the report here as JSON")
    args = parser.parse_args()
    files = _set_files(args.sets)
    if not files:
        raise SystemExit(f"no {args.sets}-on.txt and {args.sets}-off.txt")
    report: dict[str, Any] = {"collection": args.collection, "sets": {}}
    measured: dict[str, tuple[list[Any], list[Any]]] = {}
    with groundkit.Searcher.open(args.index_dir, args.collection) as retriever:
        recorded = read_lexical_bar(retriever.readers[0].location)
        if recorded is None or not recorded.separates:
            raise SystemExit("the collection records no bm25 bar that separates: nothing to ask")
        bar = report["bar"] = recorded.share
        for name, on_path, off_path in files:
            on = [_row(retriever, query) for query in load_queries(on_path)]
            off = [_row(retriever, query) for query in load_queries(off_path)]
            measured[name] = (on, off)
            report["sets"][name] = found = _per_set(on, off, bar)
            print(f"set {name}: {json.dumps({k: found[k] for k in list(found)[:3]})}",
                  file=sys.stderr)  # fmt: skip
    report["second_bar"] = {
        feature or "share alone": _second_bar(measured, feature)
        for feature in ("", "pairs", "npmi", "cover")
    }
    print(json.dumps(report["second_bar"]), file=sys.stderr)
    emit(report, args.out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
