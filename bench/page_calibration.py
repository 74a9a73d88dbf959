r"""The page's "nothing here" before and after build-site ships the collection's calibration
(adr/0069): how many held-out off-topic questions the static page answers and on-topic ones it
abstains on, as the page searches (bm25, prefix and typos on, 10 pages of 3 passages) and
plain (as the CLI's default search), by the core over the site's files (``page_runtime``,
what Pyodide runs) and by the page's JS first answer (node), which must agree.

    groundkit ingest django-5.2.19/docs --index-dir /tmp/pc/idx     # the sdist's docs/
    python bench/page_calibration.py --index-dir /tmp/pc/idx \
        --sources django-5.2.19/docs --work /tmp/pc \
        --sets bench/calibration/heldout/django --out bench/results/page_calibration_django.json

``--sets PREFIX`` reads PREFIX-on.txt, PREFIX-off.txt, PREFIX-on-2.txt, PREFIX-off-2.txt; the
282 questions shipped with the core (the calibration's off-topic side) are counted too, and
the on-topic questions as typed: one typo each, and the last word cut (bench/typo_prefix.py).
``--rule-before``: the core's evidence before adr/0069, for the before/after figures.
build-site does what this does (ingest, ``self_calibrate(dense=False)``, ``export_static``
with the bar); the bench keeps the one ingest for both sites. Counts only, no timings but
the calibration's CPU seconds.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import groundkit
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import off_topic_questions, self_calibrate
from groundkit.site import page_runtime
from groundkit.store.static import StaticReader
from groundkit.store.static_export import export_static

sys.path.insert(0, str(Path(__file__).resolve().parent))
from typo_prefix import truncated, with_typo

REPO = Path(__file__).resolve().parents[1]
RUNNER = REPO / "tests" / "web" / "first_answer_run.mjs"
AS_THE_PAGE = {"top_k": 10, "prefix": True, "fuzzy": True, "group": 3}
PLAIN = {"top_k": 10, "prefix": False, "fuzzy": False, "group": 0}


def core_answers(site: Path, sources: Path, requests: list[dict[str, Any]]) -> list[Any]:
    def fetch(path: str) -> bytes:
        if path.startswith("sources/"):
            return (sources / path.removeprefix("sources/")).read_bytes()
        return (site / path).read_bytes()

    page_runtime.open_reader(StaticReader(fetch, index="index/", sources="sources/"))
    out = []
    for r in requests:
        raw = page_runtime.search(
            r["query"], "bm25", r["top_k"], False, prefix=r["prefix"], fuzzy=r["fuzzy"],
            group=r["group"],
        )  # fmt: skip
        answer = json.loads(raw)
        answer.pop("ms")
        out.append(answer)
    return out


def js_answers(site: Path, requests: list[dict[str, Any]], work: Path) -> list[Any]:
    file = work / "requests.json"
    file.write_text(json.dumps(requests), encoding="utf-8")
    done = subprocess.run(
        ["node", str(RUNNER), str(site), str(file)], capture_output=True, text=True, check=True
    )
    found: list[Any] = json.loads(done.stdout)
    return found


def keep_unknown_terms() -> None:
    """The core as before adr/0069: no term of an expanded word leaves bm25's ideal."""
    from groundkit.retrieval.execution import Execution

    terms = Execution._terms

    def before(self: Execution, *args: Any) -> Any:
        found, matched, _ = terms(self, *args)
        return found, matched, frozenset()

    Execution._terms = before  # type: ignore[method-assign]


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--index-dir", required=True, help="folder holding the collection")
    parser.add_argument("--collection", default="default", help="its name (default: default)")
    parser.add_argument("--sources", required=True, help="the folder that was ingested")
    parser.add_argument("--work", required=True, help="a folder for the two sites")
    parser.add_argument(
        "--sets", required=True, help="PREFIX of PREFIX-on.txt, PREFIX-off.txt, -on-2, -off-2"
    )
    parser.add_argument("--out", help="write the report here as JSON")
    parser.add_argument(
        "--rule-before",
        action="store_true",
        help="the core's evidence before adr/0069 (an expanded word's unknown terms stay in "
        "the ideal); the JS path follows the new rule, so JS == core then counts less",
    )
    args = parser.parse_args()
    work, sources = Path(args.work), Path(args.sources)
    started = time.process_time()
    with groundkit.Searcher.open(args.index_dir, args.collection) as searcher:
        bar = self_calibrate(searcher, dense=False).lexical_bar().to_dict()
        calibration_cpu = round(time.process_time() - started, 2)
        for name, shipped in (("before", None), ("after", bar)):
            shutil.rmtree(work / name, ignore_errors=True)
            export_static(searcher.reader, work / name / "index", sources, lexical_bar=shipped)
    sets = {
        f"{kind}{suffix}": load_queries(f"{args.sets}-{kind}{suffix}.txt")
        for suffix in ("", "-2")
        for kind in ("on", "off")
    }
    sets["off-shipped"] = off_topic_questions()  # the calibration's own off-topic side
    # as a visitor types: each on-topic question with one typo, and with its last word cut
    asked = sets["on"] + sets["on-2"]
    sets["on-typo"] = [with_typo(f"q{n}", q) for n, q in enumerate(asked)]
    sets["on-cut"] = [truncated(q) for q in asked]
    if args.rule_before:
        keep_unknown_terms()
    report: dict[str, Any] = {"lexical_bar": bar, "calibration_cpu_s": calibration_cpu}
    for name in ("before", "after"):
        for how, options in (("as_the_page", AS_THE_PAGE), ("plain", PLAIN)):
            requests = [
                {"query": q, **options, "set": label} for label, qs in sets.items() for q in qs
            ]
            core = core_answers(work / name, sources, requests)
            js = js_answers(work / name, requests, work)
            rows: dict[str, Any] = {}
            for label in sets:
                picked = [i for i, r in enumerate(requests) if r["set"] == label]
                answered = [i for i in picked if core[i]["results"]]
                wrong = answered if label.startswith("off") else sorted(set(picked) - set(answered))
                if label == "off-shipped":
                    wrong = wrong[:40]
                rows[label] = {
                    "answered": f"{len(answered)}/{len(picked)}",
                    "wrong": [[requests[i]["query"], core[i].get("lexical_share")] for i in wrong],
                }
            same = sum(1 for c, j in zip(core, js, strict=True) if j is not None and c == j)
            rows["js_equals_core"] = f"{same}/{len(requests)}"
            report[f"{name}_{how}"] = rows
            summary = {k: v["answered"] for k, v in rows.items() if k != "js_equals_core"}
            print(name, how, summary, "JS == core:", rows["js_equals_core"], file=sys.stderr)
    text = json.dumps(report, indent=1, ensure_ascii=False)
    if args.out:
        Path(args.out).write_text(text + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
