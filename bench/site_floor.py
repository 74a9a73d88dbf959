"""A site with vectors says "nothing here" by its own dense floor (adr/0070): held-out
questions through the core as the page runs it with semantic search on (``page_runtime`` and
``page_semantic`` over the site's files; each query's vector given by the native ONNX
embedder of the collection's model, where the page's onnxruntime-web gives it), on a static
export of a MiniLM collection shipping the model's floor (before) and the dense floor and
hybrid share the collection fits itself (after: what build-site ships).

    groundkit ingest sample --index-dir /tmp/pf/sample --embedder minilm
    python bench/site_floor.py --index-dir /tmp/pf/sample --sources core/groundkit/sample \
        --work /tmp/pf/w --sets bench/calibration/heldout/sample \
        --out bench/results/site_floor_sample.json

``--sets PREFIX`` reads PREFIX-on.txt, PREFIX-off.txt, PREFIX-on-2.txt and PREFIX-off-2.txt
where they exist; the 282 questions shipped with the core (the calibration's off-topic side)
are counted too, and with ``--beir DIR`` the dataset's judged test queries as on-topic.
Both sites ship bm25's bar (adr/0069); only the dense floor differs. Searched as the page
does (10 pages of 3 passages, prefix and typos on), in hybrid (the page's mode once semantic
search is on) and dense. build-site fits the calibration on the collection it
ingests (``self_calibrate``); the bench fits it on the given one (SciFact's ingest takes
hours here). Counts only, no timings but the calibration's CPU seconds.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import time
from pathlib import Path
from typing import Any

import groundkit
from groundkit.evaluation.floor_calibration import load_queries
from groundkit.evaluation.self_calibration import off_topic_questions, self_calibrate
from groundkit.site import page_runtime, page_semantic
from groundkit.store.static import StaticReader
from groundkit.store.static_export import export_static

MODES = ("hybrid", "dense")


class _Bytes:
    def __init__(self, data: bytes) -> None:
        self.data = data

    def to_bytes(self) -> bytes:
        return self.data


def page_answers(
    site: Path, sources: Path, embedder: Any, queries: list[str], mode: str
) -> list[dict[str, Any]]:
    def fetch(path: str) -> bytes:
        if path.startswith("sources/"):
            return (sources / path.removeprefix("sources/")).read_bytes()
        return (site / path).read_bytes()

    page_runtime.open_reader(StaticReader(fetch, index="index/", sources="sources/"))
    model = hashlib.sha256(Path(embedder.model_path).read_bytes()).hexdigest()
    tokenizer = _Bytes(Path(embedder.tokenizer_path).read_bytes())
    page_semantic.enable(model, tokenizer, embedder.similarity_floor)
    out = []
    for query in queries:
        page_semantic.give(query, json.dumps(embedder.embed_query(query)))
        answer = json.loads(page_runtime.search(query, mode, 10, False, group=3))
        share = answer.get("lexical_share")
        floor = answer["floor"]
        out.append(
            {
                "query": query,
                "abstained": answer.get("abstained", False),
                "results": len(answer["results"]),
                "dense_best": _rounded(floor["dense_best"]),
                "lexical_share": _rounded(share),
                "floor": floor["min_similarity"],
                "floor_source": floor["source"],
            }
        )
    return out


def _rounded(value: float | None) -> float | None:
    return None if value is None else round(value, 4)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index-dir", required=True)
    parser.add_argument("--collection", default="default")
    parser.add_argument("--sources", required=True, help="the folder the collection ingested")
    parser.add_argument("--work", required=True, help="a scratch folder for the two sites")
    parser.add_argument("--sets", required=True, help="PREFIX of the held-out question files")
    parser.add_argument("--beir", help="a BEIR dataset folder: its test queries, as on-topic")
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    sources, work = Path(args.sources).resolve(), Path(args.work)
    with groundkit.Searcher.open(args.index_dir, args.collection) as searcher:
        embedder = searcher.embedder
        assert embedder is not None and embedder.identity.semantic, "a MiniLM collection"
        started = time.process_time()
        fitted = self_calibrate(searcher)
        cpu = time.process_time() - started
        assert fitted.floor is not None
        bar, floor = fitted.lexical_bar().to_dict(), fitted.floor.to_dict()
        for name, shipped in (("before", None), ("after", floor)):
            shutil.rmtree(work / name, ignore_errors=True)
            export_static(
                searcher.reader,
                work / name / "index",
                sources,
                lexical_bar=bar,
                dense_floor=shipped,
            )
    sets = {
        name: load_queries(Path(f"{args.sets}-{name}.txt"))
        for name in ("on", "off", "on-2", "off-2")
        if Path(f"{args.sets}-{name}.txt").is_file()
    }
    sets["shipped"] = off_topic_questions()
    if args.beir:
        sets["on-beir"] = load_queries(Path(args.beir))
    report: dict[str, Any] = {
        "index_dir": args.index_dir,
        "sets": args.sets,
        "calibration_cpu_s": round(cpu, 2),
        "model_floor": embedder.similarity_floor,
        "dense_floor": floor,
        "lexical_bar": bar,
        "runs": {},
    }
    for name in ("before", "after"):
        for mode in MODES:
            counts, rows = {}, {}
            for set_name, queries in sets.items():
                found = page_answers(work / name, sources, embedder, queries, mode)
                said = sum(1 for row in found if row["abstained"])
                on_topic = set_name.startswith("on")
                wrongly = said if on_topic else len(found) - said
                counts[set_name] = {"abstained" if on_topic else "answered": wrongly}
                counts[set_name]["of"] = len(found)
                wrong = [row for row in found if row["abstained"] == on_topic]
                rows[set_name] = found if len(found) <= 20 else wrong  # the long sets' errors
            report["runs"][f"{name} {mode}"] = {"counts": counts, "answers": rows}
            print(name, mode, json.dumps(counts))
    Path(args.out).write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
