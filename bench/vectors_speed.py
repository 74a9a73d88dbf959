"""Vector search, side by side: usearch HNSW (groundkit_native) vs usearch exact vs numpy brute
force vs the core's exact store (pure Python, and with its numpy prefilter), on synthetic
384-d unit vectors.

    .venv-native/bin/python bench/vectors_speed.py                       # 10k and 100k
    .venv-native/bin/python bench/vectors_speed.py --sizes 1000000 --no-core
    .venv-native/bin/python bench/vectors_speed.py --sizes 100000 --sweep 64 128 256 512

Data (``--kind``): ``lowrank`` (default; a 32-d Gaussian latent space mapped into 384-d plus
30 % isotropic noise: a stand-in for sentence embeddings, whose intrinsic dimension is low; the
mean cosine of a query's nearest neighbour is 0.65, as with all-MiniLM on SciFact),
``clustered`` (1 centre per 100 vectors plus noise: easy) or ``uniform`` (random directions:
no structure, the worst case for any graph index). Queries are drawn the same way.
Ground truth is numpy's exact top 10 by cosine. Reported per system: build seconds, queries/s
(one query per call, as a retriever sends them), recall@10 and memory (bytes of the index, or
of the float32 matrix). The core exact store is timed on a few queries only (it is O(N) in
pure Python); ``--no-core`` skips it.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np

import groundkit_native  # noqa: F401  (onnxruntime before usearch)
from groundkit.vectors.exact import ExactVectorStore
from groundkit_native.usearch_store import UsearchSettings, UsearchVectorStore


def data(n: int, d: int, kind: str, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    fixed = np.random.default_rng(0)  # the same structure for corpus and queries
    if kind == "uniform":
        v = rng.standard_normal((n, d), dtype=np.float32)
    elif kind == "clustered":
        centres = fixed.standard_normal((max(n // 100, 10), d), np.float32)
        v = centres[rng.integers(0, len(centres), n)]
        v += rng.standard_normal((n, d), dtype=np.float32)
    else:  # lowrank: a 32-d latent space mapped into d dimensions, plus 30 % isotropic noise
        basis = fixed.standard_normal((32, d), np.float32) / np.sqrt(32)
        v = rng.standard_normal((n, 32), dtype=np.float32) @ basis
        v += 0.3 * rng.standard_normal((n, d), dtype=np.float32) / np.sqrt(d)
    return (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)


def recall(found: list[list[int]], truth: np.ndarray) -> float:
    return float(
        np.mean([len(set(f) & set(t.tolist())) / 10 for f, t in zip(found, truth, strict=False)])
    )


def run(n: int, d: int, queries: int, kind: str, sweep: list[int], core: bool) -> list[dict]:
    rows: list[dict] = []
    v = data(n, d, kind, 1)
    q = data(queries, d, kind, 2)
    keys = list(range(n))
    t = time.perf_counter()
    truth = np.argsort(-(q @ v.T), axis=1)[:, :10]
    t = time.perf_counter()
    for x in q:
        s = v @ x
        top = np.argpartition(-s, 10)[:10]
        top[np.argsort(-s[top])]
    qps = queries / (time.perf_counter() - t)
    rows.append(
        {
            "system": "numpy brute force",
            "n": n,
            "qps": qps,
            "recall@10": 1.0,
            "build_s": 0.0,
            "memory_mb": v.nbytes / 2**20,
        }
    )
    for exact in (False, True):
        t = time.perf_counter()
        store = UsearchVectorStore(d, "cosine", UsearchSettings(exact=exact))
        store.add(keys, v)
        build = time.perf_counter() - t
        efs = sweep if not exact else [0]
        for ef in efs:
            if ef:
                store.index.expansion_search = ef
            t = time.perf_counter()
            found = [[k for k, _ in store.search(x, 10)] for x in q]
            qps = queries / (time.perf_counter() - t)
            name = "usearch exact" if exact else f"usearch hnsw ef={ef}"
            rows.append(
                {
                    "system": name,
                    "n": n,
                    "qps": qps,
                    "recall@10": recall(found, truth),
                    "build_s": build,
                    "memory_mb": store.index.memory_usage / 2**20,
                }
            )
        del store
    if core:
        for accelerator, label, limit in (
            ("python", "core exact (pure Python)", 200_000),
            ("numpy", "core exact (numpy prefilter)", 50_000_000),
        ):
            few = q[: max(2, min(queries, limit // n))]
            t = time.perf_counter()
            exact_store = ExactVectorStore(d, "cosine", accelerator=accelerator)  # type: ignore[arg-type]
            exact_store.add(keys, v.tolist())
            exact_store.search(few[0].tolist(), 10)  # the prefilter's matrix is built here
            build = time.perf_counter() - t
            t = time.perf_counter()
            found = [[k for k, _ in exact_store.search(x.tolist(), 10)] for x in few]
            qps = len(few) / (time.perf_counter() - t)
            rows.append(
                {
                    "system": label,
                    "n": n,
                    "qps": qps,
                    "recall@10": recall(found, truth[: len(few)]),
                    "build_s": build,
                    "memory_mb": float("nan"),
                }
            )
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--queries", type=int, default=500)
    parser.add_argument("--kind", choices=("lowrank", "clustered", "uniform"), default="lowrank")
    parser.add_argument(
        "--sweep", type=int, nargs="+", default=[UsearchSettings().expansion_search]
    )
    parser.add_argument("--no-core", action="store_true")
    parser.add_argument("--json", default=None, metavar="FILE")
    args = parser.parse_args()
    rows: list[dict] = []
    for n in args.sizes:
        rows += run(n, args.dim, args.queries, args.kind, args.sweep, not args.no_core)
    print(f"{'system':<26} {'n':>8} {'qps':>9} {'recall@10':>9} {'build s':>8} {'MiB':>7}")
    for r in rows:
        print(
            f"{r['system']:<26} {r['n']:>8} {r['qps']:>9.1f} {r['recall@10']:>9.4f} "
            f"{r['build_s']:>8.2f} {r['memory_mb']:>7.1f}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as handle:
            json.dump({"kind": args.kind, "dim": args.dim, "rows": rows}, handle, indent=1)


if __name__ == "__main__":
    main()
