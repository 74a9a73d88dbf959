"""Typo lookup structures side by side on BEIR vocabularies (issue 31 item 4; ADR 0046).

    python bench/fuzzy_structures.py [--data ../shared/data/beir] [--work /tmp/gk-typo]
        [--datasets scifact cranfield] [--rounds 5] [--out bench/results/fuzzy_structures.json]

For each dataset's BM25 collection (built as bench/typo_prefix.py builds it, reused from
``--work``), over the terms of the typo'd query words bench/typo_prefix.py generates:
  - ``symspell``: the symmetric-delete table for one edit, and for two a scan of the terms with
    the same first letter and a length within two (the lexicon before ADR 0046's automaton);
  - ``automaton``: a Levenshtein automaton walked over the sorted term list, nothing built;
  - ``lexicon``: what groundkit.index.lexicon ships (deletes for one edit, the automaton on the
    first letter's slice for two);
  - ``rapidfuzz`` (only where the package imports): a C scan of every term, a reference peer.
Build time, memory (tracemalloc: peak while building, and what the tables keep), lookup time per
word at 1 and 2 edits (the best of ``--rounds``), and whether all return identical answers
(terms, distances, order). Ratios are from this one invocation on one machine.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from groundkit.analysis.analyzer import Analyzer
from groundkit.evaluation.beir import BeirDataset
from groundkit.evaluation.run import build_collection
from groundkit.index.automaton import terms_within
from groundkit.index.lexicon import Lexicon, edit_distance
from groundkit.store.sqlite import SqliteStore
from typo_prefix import WORD, with_typo

Lookup = Callable[[str, int], dict[str, int]]


def _deletions(word: str) -> Iterator[str]:
    return (word[:i] + word[i + 1 :] for i in range(len(word)))


class SymSpell:
    """One edit from the delete table; two from the first-letter, length-within-two buckets."""

    def __init__(self, terms: list[str]) -> None:
        self.terms = frozenset(terms)
        self.deletes: dict[str, list[str]] = {}
        self.buckets: dict[tuple[str, int], list[str]] = {}
        for known in terms:
            for variant in set(_deletions(known)):
                self.deletes.setdefault(variant, []).append(known)
            self.buckets.setdefault((known[:1], len(known)), []).append(known)

    def near(self, term: str, max_edits: int) -> dict[str, int]:
        candidates: set[str] = set()
        for probe in (term, *_deletions(term)):
            if probe in self.terms:
                candidates.add(probe)
            candidates.update(self.deletes.get(probe, ()))
        if max_edits > 1:
            for length in range(len(term) - max_edits, len(term) + max_edits + 1):
                candidates.update(self.buckets.get((term[:1], length), ()))
        candidates.discard(term)
        found = {}
        for candidate in candidates:
            distance = edit_distance(term, candidate, max_edits)
            if distance <= max_edits and (distance == 1 or candidate[:1] == term[:1]):
                found[candidate] = distance
        return dict(sorted(found.items()))


class Automaton:
    """The sorted term list as it is; each lookup walks it."""

    def __init__(self, terms: list[str]) -> None:
        self.terms = terms

    def near(self, term: str, max_edits: int) -> dict[str, int]:
        return terms_within(term, self.terms, max_edits, first_changed=1)


class Shipped:
    """groundkit's Lexicon over a reader whose term list is already read."""

    def __init__(self, terms: list[str]) -> None:
        self.lexicon = Lexicon(_Terms(terms), str)  # type: ignore[arg-type]
        self.lexicon.near("", 1)  # builds the delete table

    def near(self, term: str, max_edits: int) -> dict[str, int]:
        return self.lexicon.near(term, max_edits)


class _Terms:
    def __init__(self, terms: list[str]) -> None:
        self.terms = terms

    def indexed_terms(self, prefix: str) -> list[str]:
        assert prefix == ""
        return self.terms


class RapidFuzz:
    """A C scan of every term by its OSA distance (rapidfuzz), the same first-letter rule."""

    def __init__(self, terms: list[str]) -> None:
        from rapidfuzz import process
        from rapidfuzz.distance import OSA

        self.terms, self.process, self.scorer = terms, process, OSA.distance

    def near(self, term: str, max_edits: int) -> dict[str, int]:
        hits = self.process.extract(
            term, self.terms, scorer=self.scorer, score_cutoff=max_edits, limit=None
        )
        found = {
            known: int(distance)
            for known, distance, _ in hits
            if known != term and (distance <= 1 or known[:1] == term[:1])
        }
        return dict(sorted(found.items()))


def structures() -> dict[str, type[Any]]:
    found: dict[str, type[Any]] = {"symspell": SymSpell, "automaton": Automaton}
    found["lexicon"] = Shipped
    try:
        import rapidfuzz  # noqa: F401
    except ImportError:
        return found
    found["rapidfuzz"] = RapidFuzz
    return found


def vocabulary(root: Path, work: Path) -> tuple[list[str], Analyzer, BeirDataset]:
    dataset = BeirDataset.load(root)
    store = SqliteStore(work / root.name / "collection.sqlite")
    sources_file = work / root.name / "sources.json"
    if not sources_file.exists():
        sources = build_collection(dataset, store, work / root.name / "corpus")
        sources_file.write_text(json.dumps(sources))
    reader = store.reader()
    terms = reader.indexed_terms("")
    analyzer = Analyzer.from_identity(reader.analyzer_identity, subject=str(root))
    store.close()
    return terms, analyzer, dataset


def typo_terms(dataset: BeirDataset, analyzer: Analyzer) -> list[str]:
    """The terms of the words bench/typo_prefix.py changed, each once, in query order."""
    found: dict[str, None] = {}
    for query_id, text in dataset.queries.items():
        typo = with_typo(query_id, text)
        clean = {m.group() for m in WORD.finditer(text)}
        for word in WORD.findall(typo):
            if word not in clean:
                found.update(dict.fromkeys(analyzer.terms(word)))
    return list(found)


def measure(
    make: type[Any], terms: list[str], words: list[str], rounds: int
) -> tuple[dict[str, float], dict[int, list[list[tuple[str, int]]]]]:
    started = time.perf_counter()
    built = make(terms)
    build_s = time.perf_counter() - started
    tracemalloc.start()  # a second build, traced (tracing slows it)
    again = make(terms)
    kept, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    del again
    figures = {"build_s": round(build_s, 4), "kept_mib": kept / 2**20, "peak_mib": peak / 2**20}
    answers: dict[int, list[list[tuple[str, int]]]] = {}
    for edits in (1, 2):
        best = float("inf")
        for _ in range(rounds):
            started = time.perf_counter()
            found = [built.near(word, edits) for word in words]
            best = min(best, time.perf_counter() - started)
        figures[f"lookup_us_{edits}"] = round(best / len(words) * 1e6, 1)
        answers[edits] = [list(one.items()) for one in found]
    figures["kept_mib"] = round(figures["kept_mib"], 2)
    figures["peak_mib"] = round(figures["peak_mib"], 2)
    return figures, answers


def run_dataset(root: Path, work: Path, rounds: int) -> dict[str, Any]:
    terms, analyzer, dataset = vocabulary(root, work)
    words = typo_terms(dataset, analyzer)
    rows: dict[str, dict[str, float]] = {}
    answers: dict[str, dict[int, list[list[tuple[str, int]]]]] = {}
    for name, make in structures().items():
        rows[name], answers[name] = measure(make, terms, words, rounds)
    reference = answers["symspell"]
    ratios = {
        key: round(rows["automaton"][key] / rows["symspell"][key], 3)
        for key in ("build_s", "kept_mib", "peak_mib", "lookup_us_1", "lookup_us_2")
        if rows["symspell"][key]
    }
    shipped = {
        key: round(rows["lexicon"][key] / rows["symspell"][key], 3)
        for key in ("lookup_us_1", "lookup_us_2")
    }
    tracemalloc.start()
    copied = [term[:1] + term[1:] for term in terms]  # fresh strings, as a reader returns them
    listed = tracemalloc.get_traced_memory()[0] / 2**20
    tracemalloc.stop()
    del copied
    return {
        "terms": len(terms),
        "term_list_mib": round(listed, 2),
        "words": len(words),
        "found_per_word": {
            edits: round(sum(map(len, reference[edits])) / len(words), 2) for edits in (1, 2)
        },
        "identical": {name: found == reference for name, found in answers.items()},
        "rows": rows,
        "automaton_over_symspell": ratios,
        "lexicon_over_symspell": shipped,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=Path("../shared/data/beir"))
    parser.add_argument("--work", type=Path, default=Path("/tmp/gk-typo"))
    parser.add_argument("--datasets", nargs="+", default=["scifact", "cranfield"])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--out", type=Path, default=Path("bench/results/fuzzy_structures.json"))
    args = parser.parse_args()
    report: dict[str, Any] = {}
    for name in args.datasets:
        (args.work / name).mkdir(parents=True, exist_ok=True)
        report[name] = found = run_dataset(args.data / name, args.work, args.rounds)
        print(
            f"== {name}: {found['terms']} terms ({found['term_list_mib']} MiB as a list, read by "
            f"all), {found['words']} typo'd query terms, "
            f"found per word {found['found_per_word']}, identical {found['identical']}"
        )
        for structure, values in found["rows"].items():
            print(
                f"  {structure:10} build {values['build_s']:7.3f} s  kept "
                f"{values['kept_mib']:6.2f} MiB  peak {values['peak_mib']:6.2f} MiB  lookup "
                f"{values['lookup_us_1']:8.1f} us (1 edit) {values['lookup_us_2']:8.1f} us (2)"
            )
        print(f"  automaton / symspell: {found['automaton_over_symspell']}")
        print(f"  lexicon / symspell:   {found['lexicon_over_symspell']}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
