r"""Page-level MRR@10 on judged Django queries (adr/0060): groundkit (pages as grouped results)
against Pagefind over Django's Sphinx HTML.

    python bench/page_mrr.py --index-dir DIR [--collection NAME] [--mode bm25] \
        [--judged SET.jsonl] [--keep-question-words] [--prefix] [--fuzzy] \
        [--pagefind RESULTS.json] \
        [--out bench/results/page_mrr_django.json]

The judged set is bench/data/django-judged.jsonl (default): 20 questions, 20 keyword queries
and 20 task phrases, each with the one page (a path under Django's docs/) that answers it,
judged by reading the docs; bench/data/django-judged-2.jsonl is a second one (10 + 10 + 10,
written before adr/0065 measured anything), -3 to -6 four more (written blind by helpers
before any run; -5 after adr/0074's candidate was recorded, -6 after adr/0081). RESULTS.json:
{query: [page path, ...]} from bench/page_mrr_pagefind.mjs. ``--keep-question-words``
searches with the question's framing words kept in the BM25 query (as before adr/0065; the
abstention's evidence still leaves them out, as adr/0060 shipped it).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import groundkit
from groundkit.retrieval.execution import Execution

JUDGED = Path(__file__).parent / "data" / "django-judged.jsonl"
KINDS = ("question", "keywords", "task")


def reciprocal_rank(pages: list[str], wanted: str) -> float:
    return next((1.0 / rank for rank, page in enumerate(pages[:10], 1) if page == wanted), 0.0)


def summary(rows: list[dict[str, object]], key: str) -> dict[str, float]:
    out = {"all": round(sum(float(r[key]) for r in rows) / len(rows), 3)}  # type: ignore[arg-type]
    for kind in KINDS:
        part = [float(r[key]) for r in rows if r["kind"] == kind]  # type: ignore[arg-type]
        out[kind] = round(sum(part) / len(part), 3)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index-dir", required=True, help="folder holding the collection")
    parser.add_argument("--collection", default="default", help="its name (default: default)")
    parser.add_argument("--mode", default="bm25", help="bm25 (default), dense or hybrid")
    parser.add_argument(
        "--judged", type=Path, default=JUDGED, help="the judged queries (default: %(default)s)"
    )
    parser.add_argument(
        "--keep-question-words", action="store_true", help="search with the framing words kept"
    )
    parser.add_argument("--prefix", action="store_true", help="as the page searches (with --fuzzy)")
    parser.add_argument("--fuzzy", action="store_true", help="typos on")
    parser.add_argument("--pagefind", help="Pagefind's ranked pages (JSON) to score beside")
    parser.add_argument("--out", help="write the report here as JSON")
    args = parser.parse_args()
    if args.keep_question_words:  # in the query only: the evidence judges content words
        terms_of = Execution._terms
        Execution._terms = lambda self, request, mode, trace: terms_of(  # type: ignore[method-assign]
            self, request, "hybrid" if mode == "bm25" else mode, trace
        )
    judged = [json.loads(line) for line in args.judged.read_text(encoding="utf-8").splitlines()]
    peer = json.loads(Path(args.pagefind).read_text("utf-8")) if args.pagefind else None
    rows: list[dict[str, object]] = []
    with groundkit.Searcher.open(args.index_dir, args.collection) as retriever:
        analyzer = retriever.analyzer.identity
        for item in judged:
            request = groundkit.SearchRequest(
                item["query"],
                10,
                args.mode,
                highlight=False,
                prefix=args.prefix,
                fuzzy=args.fuzzy,
                group=groundkit.GroupOptions(1),
            )
            response = retriever.search(request)
            pages = [group.source for group in response.groups or ()]
            row = {**item, "groundkit": reciprocal_rank(pages, item["page"]), "top3": pages[:3]}
            row["abstained"] = bool(response.metadata.get("abstained"))
            if peer is not None:
                row["pagefind"] = reciprocal_rank(peer[item["query"]], item["page"])
                row["pagefind_top3"] = peer[item["query"]][:3]
            rows.append(row)
    report: dict[str, object] = {"mode": args.mode, "queries": len(rows)}
    report["judged"] = args.judged.name
    report["question_words"] = "kept" if args.keep_question_words else "left out"
    report["options"] = {"prefix": args.prefix, "fuzzy": args.fuzzy}
    report["analyzer"] = analyzer
    report["groundkit"] = summary(rows, "groundkit")
    if peer is not None:
        report["pagefind"] = summary(rows, "pagefind")
    report["abstained"] = sum(bool(r["abstained"]) for r in rows)
    report["rows"] = rows
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in report.items() if k != "rows"}), file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
