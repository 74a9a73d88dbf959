r""""Nothing here" for a question that names a thing the collection lacks (adr/0080): the rule
adopted and two variants rejected, on the held-out sets (and, with ``--claims``, a BEIR
folder's judged test queries taken as on-topic).

A name is told by its capitals (``abstention.names``: ``FastAPI``, ``pgAdmin``, ``Tokyo``).
Rules, each counted with bm25's bar applied whether or not it separates (SciFact's does not,
so a search there applies neither; the figures show what it would cost where it did):
- ``share``: bm25's evidence alone, as before adr/0080;
- ``adopted``: also nothing here where a name's every term is lacking
  (``abstention.absent_name``), the bar fitted on the share alone;
- ``rare``: also where a name is held by at most ``RARE_DF`` chunks and none of the query's
  ``DEPTH`` best bm25 passages holds it (``SQLAlchemy``, once in Django's docs);
- ``fitted``: the adopted veto counted in the calibration too (a vetoed shipped question's
  evidence 0, the bar fitted by the collection's own rule, ``self_calibration``).

    python bench/abstain_names.py --index-dir DIR --name sample|django|scifact \
        [--claims ../shared/data/beir/scifact] [--out bench/results/abstain_names.json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import groundkit
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import (
    _allowed,
    off_topic_bar,
    off_topic_questions,
)
from groundkit.retrieval.abstention import absent_name, names
from groundkit.retrieval.expansion import RARE_DF

sys.path.insert(0, str(Path(__file__).resolve().parent))
from abstain_foreign_language import HELDOUT, add_figures, pseudo_queries  # a sibling bench

DEPTH = 10
RULES = ("share", "adopted", "rare", "fitted")


class Vetoes:
    """Whether a query names a thing the collection lacks (``adopted``), or barely holds
    where its best passages lack it too (``rare``)."""

    def __init__(self, searcher: groundkit.Searcher) -> None:
        self.searcher = searcher
        self.index = searcher.transport.scorers[0]._lexical  # type: ignore[attr-defined]

    def held(self, terms: list[str]) -> dict[str, int]:
        return {term: self.index.df(term) for term in terms}

    def adopted(self, query: str) -> bool:
        analyzer = self.searcher.analyzer
        framing = self.searcher.question_terms()
        found = absent_name(
            query, analyzer.languages, analyzer.terms, self.held, frozenset(), framing
        )
        return found is not None

    def rare(self, query: str) -> bool:
        analyzer = self.searcher.analyzer
        words = names(query, analyzer.languages)
        few = [t for w in words for t in analyzer.terms(w) if self.index.df(t) <= RARE_DF]
        if not few:
            return False
        found = self.searcher.search(query, DEPTH, "bm25", lexical_bar=0, highlight=False)
        passages = {t for r in found.results for t in analyzer.terms(r.content)}
        return any(term not in passages for term in few)


def measure(
    index_dir: str, name: str, rule: str, claims: list[str], sets: list[str]
) -> dict[str, object]:
    with groundkit.Searcher.open(index_dir) as searcher:
        vetoes = Vetoes(searcher)
        veto = {"share": lambda q: False, "rare": vetoes.rare}.get(rule, vetoes.adopted)
        share = searcher.lexical_evidence
        on_queries = pseudo_queries(searcher)
        shipped = off_topic_questions()
        fitted = [0.0 if rule == "fitted" and veto(q) else share(q) for q in shipped]
        bar = off_topic_bar(fitted, _allowed(len(shipped)))

        def answered(query: str) -> bool:
            return share(query) >= bar and not (bar > 0 and veto(query))

        found: dict[str, object] = {}
        for suffix in sets:
            on_path = HELDOUT / f"{name}-on{suffix}.txt"  # SciFact has no second
            on_set = load_queries(str(on_path)) if on_path.exists() else []
            off_set = load_queries(str(HELDOUT / f"{name}-off{suffix}.txt"))
            found[f"set{suffix or '-1'}"] = {
                "on_topic_abstained": [q for q in on_set if not answered(q)],
                "off_topic_answered": [q for q in off_set if answered(q)],
            }
        out: dict[str, object] = {
            "bar": round(bar, 4),
            "pseudo_abstained": f"{sum(not answered(q) for q in on_queries)}/{len(on_queries)}",
            "shipped_answered": f"{sum(answered(q) for q in shipped)}/{len(shipped)}",
            "sets": found,
        }
        if claims:
            out["claims_abstained"] = f"{sum(not answered(q) for q in claims)}/{len(claims)}"
    return out


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index-dir", required=True, help="folder holding the collection")
    parser.add_argument(
        "--name", required=True, help="the held-out sets' name: sample, django, scifact"
    )
    parser.add_argument(
        "--claims", help="a BEIR folder whose judged test queries count as on-topic"
    )
    parser.add_argument(
        "--rule",
        choices=RULES,
        nargs="+",
        default=list(RULES),
        help="the rules to count (default: all)",
    )
    parser.add_argument("--out", help="a JSON file to add this collection's figures to")
    args = parser.parse_args()
    claims = load_queries(args.claims) if args.claims else []
    sets = [
        s for s in ("", "-2", "-3", "-4", "-5") if (HELDOUT / f"{args.name}-off{s}.txt").exists()
    ]
    found = {rule: measure(args.index_dir, args.name, rule, claims, sets) for rule in args.rule}
    print(json.dumps(found, indent=1, ensure_ascii=False))
    if args.out:
        add_figures(Path(args.out), args.name, found)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
