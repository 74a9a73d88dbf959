"""Warm queries/s on a collection file that ``bench/bm25_speed.py`` already built.

A 1M-chunk SQLite build takes about 40 minutes on the project's 2-core machine; this measures
the query side again (after a change to the scoring code) without rebuilding, with the same
timing as ``bm25_speed.py`` (one warm-up pass, then the best of at least 5 passes lasting at
least 3 s, the same queries)::

    .bench/bin/python bench/sqlite_queries.py /tmp/bms/s6/synthetic-1000000 --json out.json

FOLDER is a corpus folder of ``bm25_speed.py --workdir`` holding ``groundkit.sqlite`` and
``queries.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Literal

sys.path.insert(0, str(Path(__file__).resolve().parent))
import bm25_speed


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--k", type=int, nargs="*", default=[10, 1000])
    parser.add_argument("--json", type=Path, default=None)
    args = parser.parse_args()
    from groundkit.config import BM25Params
    from groundkit.index.bm25 import BM25Index
    from groundkit.store.sqlite import SqliteReader

    queries = json.loads((args.folder / "queries.json").read_text())
    result: dict[str, object] = {"machine": bm25_speed._machine()}
    paths: tuple[Literal["python", "numpy"], ...] = ("python", "numpy")
    for accelerator in paths:
        started = time.perf_counter()
        reader = SqliteReader(args.folder / "groundkit.sqlite")
        index = BM25Index(
            reader, BM25Params(k1=bm25_speed.K1, b=bm25_speed.B), accelerator=accelerator
        )
        open_s = time.perf_counter() - started
        timings, _ = bm25_speed._gk_queries(index, reader, queries, args.k, reader.chunk_count)
        qps = {k: round(t["qps"], 1) for k, t in timings.items()}
        result[accelerator] = {"docs": reader.chunk_count, "open_s": open_s, "queries": timings}
        print(
            f"gk-{accelerator} (sqlite): {reader.chunk_count:,} docs, "
            f"open {open_s:.2f} s, q/s {qps}"
        )
        reader.close()
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
