"""Cold-process time to a first result: groundkit, tantivy-py and bm25s on the bundled sample
(issue 32, item 4; ADR 0047).

    python3 -m venv .cold && .cold/bin/pip install tantivy bm25s PyStemmer
    .cold/bin/pip install -e . && .cold/bin/python bench/cold_start.py   # --runs 10 --json PATH

Each case is a fresh ``python -c`` process, timed from start to exit (wall, perf_counter in this
driver); the cases take turns, one run each per round, after one untimed warm-up round (bytecode
caches written, files in the page cache). Reported: the median of ``--runs``, the time over bare
Python and the ratio to it, and, from one more run under ``python -X importtime``, the sum of
every module's own import time and how many modules were imported. groundkit searches the
sample collection ingested beforehand (203 chunks); tantivy and bm25s build an index of the same
33 files' text in the process and search it, as they have no collection to open here.
``--before TREE`` adds the groundkit cases again with another checkout's ``core`` first on the
path (``git archive REV core | tar -x -C TREE``), interleaved with the others.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

QUERY = "how do I report a leak"

TANTIVY = """
import json, tantivy
docs = json.load(open("sample.json"))
builder = tantivy.SchemaBuilder()
builder.add_text_field("source", stored=True)
builder.add_text_field("body", stored=False, tokenizer_name="en_stem")
schema = builder.build()
index = tantivy.Index(schema)
writer = index.writer(heap_size=15_000_000, num_threads=1)
for source, text in docs:
    writer.add_document(tantivy.Document(source=source, body=text))
writer.commit()
index.reload()
searcher = index.searcher()
hits = searcher.search(index.parse_query(QUERY, ["body"]), 5).hits
print(searcher.doc(hits[0][1])["source"][0])
"""

BM25S = """
import json, bm25s, Stemmer
docs = json.load(open("sample.json"))
stemmer = Stemmer.Stemmer("english")
retriever = bm25s.BM25()
quiet = {"show_progress": False}
corpus = bm25s.tokenize([t for _, t in docs], stopwords="en", stemmer=stemmer, **quiet)
retriever.index(corpus, **quiet)
found, _ = retriever.retrieve(bm25s.tokenize([QUERY], stemmer=stemmer, **quiet), k=5, **quiet)
print(docs[int(found[0][0])][0])
"""

GROUNDKIT_SEARCH = """
import groundkit
with groundkit.Retriever.open(".groundkit") as retriever:  # the name both sides of --before know
    print(retriever.search(QUERY).results[0].citation.source)
"""

GROUNDKIT_CLI = """
import sys
from groundkit.cli import main
sys.exit(main(["search", QUERY, "--top-k", "5"]))
"""

CASES: dict[str, str] = {
    "bare python": "pass",
    "import groundkit": "import groundkit",
    "groundkit search (CLI)": GROUNDKIT_CLI,
    "groundkit open + search (Python)": GROUNDKIT_SEARCH,
    "import tantivy": "import tantivy",
    "tantivy build + search": TANTIVY,
    "import bm25s": "import bm25s, Stemmer",
    "bm25s build + search": BM25S,
}


def prepare(folder: Path, python: str) -> None:
    """Ingest the sample into ``folder/.groundkit`` and write its files' text as sample.json."""
    code = (
        "import json, groundkit\n"
        "root = groundkit.sample_corpus()\n"
        "groundkit.ingest(root, index_dir='.groundkit')\n"
        "files = sorted(p for p in root.rglob('*') if p.is_file())\n"
        "json.dump([[str(p.relative_to(root)), p.read_text('utf-8')] for p in files],"
        " open('sample.json', 'w'))\n"
    )
    subprocess.run([python, "-c", code], cwd=folder, check=True, capture_output=True)


GROUNDKIT_CASES = ("import groundkit", "groundkit search (CLI)", "groundkit open + search (Python)")
BEFORE = " [before]"
"""The suffix of a groundkit case run with ``--before TREE``'s core first on the path."""


def command(python: str, code: str, *flags: str) -> list[str]:
    return [python, *flags, "-c", f"QUERY = {QUERY!r}\n{code}"]


def environment(case: str, before: Path | None) -> dict[str, str]:
    env = dict(os.environ)
    if before is not None and case.endswith(BEFORE):
        env["PYTHONPATH"] = os.pathsep.join([str(before / "core"), env.get("PYTHONPATH", "")])
    return env


def run(
    python: str, case: str, folder: Path, before: Path | None, *flags: str
) -> subprocess.CompletedProcess[str]:
    code = CASES[case.removesuffix(BEFORE)]
    done = subprocess.run(
        command(python, code, *flags),
        cwd=folder,
        env=environment(case, before),
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"{code!r} failed:\n{done.stderr}")
    return done


def run_once(python: str, case: str, folder: Path, before: Path | None) -> float:
    """One fresh process's wall time, ms."""
    started = time.perf_counter()
    run(python, case, folder, before)
    return (time.perf_counter() - started) * 1000


def import_profile(python: str, case: str, folder: Path, before: Path | None) -> dict[str, Any]:
    """One run under ``-X importtime``: the summed own import times and the module count."""
    done = run(python, case, folder, before, "-X", "importtime")
    fields = [line.split("|")[0].split(":")[1].strip() for line in done.stderr.splitlines()
              if line.startswith("import time:")]  # fmt: skip
    own = [int(field) for field in fields if field.isdigit()]  # not the header line
    return {"importtime_ms": round(sum(own) / 1000, 1), "modules": len(own)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--python", default=sys.executable, help="the interpreter to time")
    parser.add_argument("--cases", nargs="*", default=list(CASES), choices=list(CASES))
    parser.add_argument("--json", type=Path, default=Path("bench/results/cold_start.json"))
    parser.add_argument(
        "--before", type=Path, default=None, help="another checkout: its groundkit cases too"
    )
    args = parser.parse_args()
    cases = ["bare python", *(c for c in args.cases if c != "bare python")]
    if args.before is not None:
        cases += [f"{case}{BEFORE}" for case in GROUNDKIT_CASES if case in cases]
    with tempfile.TemporaryDirectory(prefix="cold-start-") as work:
        folder = Path(work)
        prepare(folder, args.python)
        answers = {c: run(args.python, c, folder, args.before).stdout.strip() for c in cases}
        times: dict[str, list[float]] = {case: [] for case in cases}
        for _ in range(args.runs):
            for case in cases:
                times[case].append(run_once(args.python, case, folder, args.before))
        profiles = {c: import_profile(args.python, c, folder, args.before) for c in cases}
    bare = statistics.median(times["bare python"])
    rows = []
    print(f"{'case':<43} {'median ms':>9} {'over bare':>9} {'x bare':>7} {'importtime':>10} "
          f"{'modules':>7}  first answer")  # fmt: skip
    for case in cases:
        median = statistics.median(times[case])
        row = {
            "case": case,
            "median_ms": round(median, 1),
            "over_bare_ms": round(median - bare, 1),
            "ratio_to_bare": round(median / bare, 2),
            "runs_ms": [round(t, 1) for t in times[case]],
            **profiles[case],
            "answer": (answers[case].splitlines() or [""])[0][:60],
        }
        rows.append(row)
        print(f"{case:<43} {median:9.1f} {median - bare:9.1f} {median / bare:7.2f} "
              f"{row['importtime_ms']:10.1f} {row['modules']:7d}  {row['answer']}")  # fmt: skip
    over = statistics.median(times.get("import groundkit", [bare])) - bare
    print(f"import groundkit: {over:.1f} ms over bare Python (target <= 50 ms)")
    result = {
        "bench": "cold_start",
        "query": QUERY,
        "runs": args.runs,
        "before": None if args.before is None else str(args.before),
        "python": platform.python_version(),
        "machine": f"{platform.machine()}, {os.cpu_count()} CPUs",
        "load_average": [round(x, 2) for x in os.getloadavg()],
        "date": time.strftime("%Y-%m-%d"),
        "rows": rows,
    }
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(result, indent=1) + "\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
