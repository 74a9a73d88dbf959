"""A rejected "nothing here" candidate (adr/0079): a question in another language than the
collection's, measured without that language's Snowball stopwords.

A query is taken as foreign where the Snowball stopwords of some other language number at
least two of its words and more than the collection's own language's (English here); its bm25
evidence then leaves those words out. The bar is fitted by the collection's own rule on the
shipped questions (``self_calibration``) and counted on the held-out sets.

    python bench/abstain_foreign_language.py --index-dir DIR --name sample \
        [--rule off|stopwords] [--out bench/results/abstain_foreign_language.json]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import groundkit
from groundkit.analysis.snowball_stopwords import SNOWBALL_STOPWORDS
from groundkit.analysis.tokenize import tokens
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import (
    _allowed,
    off_topic_bar,
    off_topic_questions,
    pseudo_on_topic,
)

HELDOUT = Path(__file__).resolve().parent / "calibration" / "heldout"
STOPWORDS = {name: frozenset(words.split()) for name, words in SNOWBALL_STOPWORDS.items()}


def foreign(query: str, own: tuple[str, ...] = ("english",)) -> list[str]:
    """The languages whose stopwords outnumber the collection's own in ``query`` (2+)."""
    words = [word.casefold() for word in tokens(query)]
    counts = {name: sum(word in stop for word in words) for name, stop in STOPWORDS.items()}
    mine = max(counts[name] for name in own)
    most = max(count for name, count in counts.items() if name not in own)
    if most < 2 or most <= mine:
        return []
    return [name for name, count in counts.items() if name not in own and count == most]


def evidence(searcher: groundkit.Searcher, query: str, rule: str) -> float:
    languages = foreign(query)
    if rule == "off" or not languages:
        return searcher.lexical_evidence(query)
    dropped = {
        t for name in languages for word in STOPWORDS[name] for t in searcher.analyzer.terms(word)
    }
    kept = [term for term in searcher.analyzer.terms(query) if term not in dropped]
    return searcher.lexical_evidence(kept) if kept else 0.0


def pseudo_queries(searcher: groundkit.Searcher) -> list[str]:
    """The pseudo on-topic queries ``self_calibrate`` measures: those with a content word."""
    framing = searcher.question_terms()
    return [
        query
        for query in pseudo_on_topic(searcher)
        if any(term not in framing for term in searcher.analyzer.terms(query))
    ]


def measure(index_dir: str, name: str, rule: str) -> dict[str, object]:
    with groundkit.Searcher.open(index_dir) as searcher:
        on_queries = pseudo_queries(searcher)
        shipped = off_topic_questions()
        off = [evidence(searcher, query, rule) for query in shipped]
        bar = off_topic_bar(off, _allowed(len(off)))
        on = [evidence(searcher, query, rule) for query in on_queries]
        sets: dict[str, object] = {}
        for suffix in ("", "-2", "-3", "-4", "-5"):
            on_set = load_queries(str(HELDOUT / f"{name}-on{suffix}.txt"))
            off_set = load_queries(str(HELDOUT / f"{name}-off{suffix}.txt"))
            sets[f"set{suffix or '-1'}"] = {
                "on_topic_abstained": sum(evidence(searcher, q, rule) < bar for q in on_set),
                "off_topic_answered": [q for q in off_set if evidence(searcher, q, rule) >= bar],
                "foreign_on_topic": [q for q in on_set if foreign(q)],
            }
    return {
        "bar": round(bar, 4),
        "pseudo_under_bar": f"{sum(value < bar for value in on)}/{len(on)}",
        "shipped_foreign": sum(bool(foreign(query)) for query in shipped),
        "sets": sets,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--name", required=True, help="the held-out sets' name: sample, django")
    parser.add_argument(
        "--rule", choices=("off", "stopwords"), nargs="+", default=["off", "stopwords"]
    )
    parser.add_argument("--out")
    args = parser.parse_args()
    found = {rule: measure(args.index_dir, args.name, rule) for rule in args.rule}
    print(json.dumps(found, indent=1, ensure_ascii=False))
    if args.out:
        add_figures(Path(args.out), args.name, found)
    return 0


def add_figures(path: Path, name: str, found: object) -> None:
    """``found`` under ``name`` in the JSON file ``path``, the other collections' kept."""
    kept = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    kept[name] = found
    path.write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    raise SystemExit(main())
