"""Ingest of a real folder with the default settings: files, chunks, seconds and chunks/s.

    pip download --no-deps --no-binary :all: django && tar xzf django-*.tar.gz
    python bench/ingest_folder.py django-*/docs --rounds 3

Each round ingests ``FOLDER`` into a new SQLite collection in a temporary folder
(``Indexer.ingest``: discovery, reads, chunking, analysis, the writes), in this process; the
first round pays the imports and the analyzer's cold caches. Nothing here is asserted.
"""

from __future__ import annotations

import argparse
import os
import tempfile
import time
from pathlib import Path

from groundkit.ingestion import Indexer
from groundkit.store.sqlite import SqliteStore


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    print(f"{args.folder}: load {os.getloadavg()[0]:.2f}")
    for round_number in range(1, args.rounds + 1):
        with tempfile.TemporaryDirectory() as work:
            started = time.perf_counter()
            with SqliteStore(Path(work) / "bench.sqlite") as store:
                report = Indexer(store).ingest(args.folder)
            seconds = time.perf_counter() - started
        chunks = report.chunks_written
        print(
            f"round {round_number}: {len(report.indexed)} files, {chunks:,} chunks, "
            f"{len(report.refused)} refused, {seconds:.2f} s, {chunks / seconds:,.0f} chunks/s"
        )
    print(f"load after: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
