"""Builds a synthetic collection and reports ingest rate, open time and query latency.

    python bench/core_collection.py --files 25000        # about 100k chunks
    python bench/core_collection.py --files 2500 --json  # quick

Reported: files/s and chunks/s of ingest, size on disk, time to open a retriever (a snapshot),
first-query latency, and p50/p95 over the query set. Nothing here is asserted; see adr/.
"""

from __future__ import annotations

import argparse
import json
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import groundkit
from groundkit.collection import collection_file
from synthetic import queries, write_corpus


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def run(files: int, query_count: int, workdir: Path) -> dict[str, object]:
    corpus, index = workdir / "corpus", workdir / "index"
    started = time.perf_counter()
    write_corpus(corpus, files)
    generated = time.perf_counter() - started

    started = time.perf_counter()
    report = groundkit.ingest(corpus, index_dir=index)
    ingest_s = time.perf_counter() - started

    path = collection_file(index, "default")
    size = sum(p.stat().st_size for p in path.parent.iterdir())

    started = time.perf_counter()
    retriever = groundkit.Searcher.open(index)
    open_s = time.perf_counter() - started
    chunks = retriever.reader.chunk_count

    texts = queries(query_count)
    started = time.perf_counter()
    retriever.search(texts[0], top_k=10)
    first_ms = (time.perf_counter() - started) * 1000
    latencies: list[float] = []
    for text in texts[1:]:
        t0 = time.perf_counter()
        retriever.search(text, top_k=10)
        latencies.append((time.perf_counter() - t0) * 1000)
    retriever.close()
    return {
        "machine": {"python": platform.python_version(), "platform": platform.platform()},
        "files": files,
        "chunks": chunks,
        "corpus_generation_s": round(generated, 2),
        "ingest_s": round(ingest_s, 2),
        "ingest_files_per_s": round(files / ingest_s, 1),
        "ingest_chunks_per_s": round(chunks / ingest_s, 1),
        "refused": len(report.refused),
        "size_on_disk_bytes": size,
        "bytes_per_chunk": round(size / max(chunks, 1), 1),
        "open_s": round(open_s, 4),
        "rebuild_baseline_s": round(chunks * 40e-6, 2),
        "first_query_ms": round(first_ms, 2),
        "query_p50_ms": round(statistics.median(latencies), 2),
        "query_p95_ms": round(percentile(latencies, 0.95), 2),
        "queries": len(latencies),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=25_000, help="files (4 chunks each)")
    parser.add_argument("--queries", type=int, default=201)
    parser.add_argument("--json", action="store_true", help="print JSON only")
    parser.add_argument("--workdir", type=Path, default=None, help="keep data here")
    args = parser.parse_args()
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        result = run(args.files, args.queries, args.workdir)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            result = run(args.files, args.queries, Path(tmp))
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for key, value in result.items():
            print(f"{key:>22}  {value}")


if __name__ == "__main__":
    main()
