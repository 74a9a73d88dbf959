"""Where a pure-Python BM25 query's time goes, beside rank_bm25, on one prepared corpus.

Two tables, per query (best of 7 passes over all queries, one process):

* ``floor``: at k = 1000 the parts no pure-Python path can skip (adding the postings, sorting
  the matches) against rank_bm25's whole query and the time 10x rank_bm25 allows;
* ``packing``: for several k, the pure-Python path never packed, always packed, the faster of
  the two chosen per query after the fact, and the cost rule ``BM25Index`` uses
  (adr/0016-bm25-packed-small-collections.md).

Run after ``bench/bm25_speed.py --workdir DIR`` has prepared the corpus::

    .bench/bin/python bench/bm25_parts.py --workdir DIR cranfield scifact synthetic-10000
"""

from __future__ import annotations

import argparse
import sys
import time
from array import array
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bm25_speed

PASSES = 7


def _best_us(run: Callable[[], object], queries: int) -> float:
    best = float("inf")
    for _ in range(PASSES):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return best / queries * 1e6


def _per_query_us(index: Any, queries: list[list[str]], k: int, tie_keys: Any) -> list[float]:
    best = [float("inf")] * len(queries)
    for _ in range(PASSES):
        for at, query in enumerate(queries):
            started = time.perf_counter()
            index.top_k(query, k, tie_keys)
            best[at] = min(best[at], time.perf_counter() - started)
    return [seconds * 1e6 for seconds in best]


def _packing(mode: str) -> Any:
    """The plan that never packs, always packs, or follows the cost rule (``rule``)."""
    from dataclasses import replace

    from groundkit.index.lexical_plan import DEFAULT_PLAN

    if mode == "rule":
        return DEFAULT_PLAN
    always = mode == "always"
    return replace(
        DEFAULT_PLAN,
        packed_slots_per_posting=10**9 if always else 1,
        packed_rescores_per_hit=0 if always else 10**9,
    )


def _fixed_point_floor(index: Any, parsed: list[Any], slots: int, n: int) -> float:
    """The least a query could cost if scores were fixed point (rejected in ADR 0016): each
    term's scores as 64-bit fields of one int, holding the bits of the double 2**20 + score
    (exact below 2**20 at 2**-32 resolution), so that one big-int sum, one sort of the read-back
    doubles and one subtraction per match give ordered exact scores. Keys and ties are left
    out, so the real cost would be higher still."""
    base = float(1 << 20)
    magic = int.from_bytes(array("Q", [0x413 << 52]) * slots, sys.byteorder)  # 2**20 as a double
    packed: dict[str, int] = {}
    for query in parsed:
        for term in query:
            if term.term not in packed:
                keys, values, _ = index.term_scores(term.term)
                fields = array("Q", bytes(8 * slots))
                for key, value in zip(keys, values, strict=True):
                    fields[key] = round(value * 2.0**32)
                packed[term.term] = int.from_bytes(fields, sys.byteorder)

    def one(query: Any) -> list[float]:
        total = magic
        for term in query:
            total += packed[term.term] if term.qtf == 1 else term.qtf * packed[term.term]
        doubles = array("d")
        doubles.frombytes(total.to_bytes(8 * slots, sys.byteorder))
        ordered = sorted(doubles, reverse=True)
        return [value - base for value in ordered if value > base]

    return _best_us(lambda: [one(query) for query in parsed], n)


def measure(folder: Path, ks: list[int]) -> None:
    from rank_bm25 import BM25Okapi

    from groundkit.analysis.analyzer import Analyzer
    from groundkit.config import BM25Params
    from groundkit.index.bm25 import BM25Index
    from groundkit.index.paths import accumulate
    from groundkit.index.ties import CachedTieKeys
    from groundkit.store import MemoryStore

    tokens, _, queries = bm25_speed._load_tokens(folder)
    texts = bm25_speed._load_docs(folder)["texts"]
    store = MemoryStore("parts")
    bm25_speed._write_documents(store, texts, tokens, Analyzer().identity)
    reader = store.reader()
    tie_keys = CachedTieKeys.of(reader)
    params = BM25Params(k1=bm25_speed.K1, b=bm25_speed.B)
    indexes = {
        mode: BM25Index(reader, params, accelerator="python", plan=_packing(mode))
        for mode in ("never", "always", "rule")
    }
    index = indexes["rule"]
    for _ in range(2):  # warm every cache, the tie ranks included
        for query in queries:
            for each in indexes.values():
                each.top_k(query, 1000, tie_keys)
                each.top_k(query, 10, tie_keys)
    n = len(queries)
    print(f"== {folder.name}: {len(texts):,} chunks, {n} queries (µs a query)")

    parsed = [index.query_terms(query) for query in queries]
    scores = [accumulate(query, index.term_scores) for query in parsed]
    values = [list(found.values()) for found in scores]
    rank_bm25 = BM25Okapi(tokens, k1=bm25_speed.K1, b=bm25_speed.B)
    deep = min(1000, len(texts))
    rows = [
        (
            "rank_bm25, get_scores and the top 1,000",
            _best_us(
                lambda: [bm25_speed._top_k_numpy(rank_bm25.get_scores(q), deep) for q in queries],
                n,
            ),
        )
    ]
    rows.append(("-> the time 10x rank_bm25 allows", rows[0][1] / 10))
    rows += [
        (
            "groundkit pure Python, whole query",
            _best_us(lambda: [index.top_k(q, deep, tie_keys) for q in queries], n),
        ),
        (
            "adding the postings (the dict loop)",
            _best_us(lambda: [accumulate(q, index.term_scores) for q in parsed], n),
        ),
        (
            "sorting the matches' keys by score, alone",
            _best_us(lambda: [sorted(s, key=s.__getitem__, reverse=True) for s in scores], n),
        ),
        (
            "sorted() of the bare scores, alone",
            _best_us(lambda: [sorted(v, reverse=True) for v in values], n),
        ),
        (
            "fixed-point scores: add, sort, read back",
            _fixed_point_floor(index, parsed, len(index._norms), n),
        ),
    ]
    print(f"floor at k = {deep}")
    for label, us in rows:
        print(f"  {label:44s} {us:9.1f}")

    print("packing: never / always / faster per query / rule")
    for k in ks:
        timed = {}
        for mode in ("never", "always", "rule"):
            timed[mode] = _per_query_us(indexes[mode], queries, k, tie_keys)
        oracle = [min(a, b) for a, b in zip(timed["never"], timed["always"], strict=True)]
        cells = [sum(timed["never"]), sum(timed["always"]), sum(oracle), sum(timed["rule"])]
        print(f"  k = {k:<5d} " + " / ".join(f"{total / n:.0f}" for total in cells))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("corpora", nargs="+", help="names prepared under --workdir")
    parser.add_argument("--workdir", type=Path, required=True, help="bm25_speed.py's --workdir")
    parser.add_argument("--k", type=int, nargs="*", default=[10, 30, 100, 300])
    args = parser.parse_args()
    for name in args.corpora:
        folder = args.workdir / name
        if not (folder / "tokens.pkl").exists():
            parser.error(f"{folder} is not prepared: run bench/bm25_speed.py --workdir first")
        measure(folder, args.k)


if __name__ == "__main__":
    main()
