"""Sharded collections against one collection over the same corpus: identity, build, query, memory.

    PYTHONPATH=core:extras python bench/shards_bench.py --files 2500 --shards 4 \
        --json bench/results/shards_10k.json
    PYTHONPATH=core:extras python bench/shards_bench.py --scifact --shards 4
    PYTHONPATH=core:extras .venv-ray/bin/python bench/shards_bench.py --files 2500 --ray 1,2
    PYTHONPATH=$PWD/core:$PWD/extras .venv-ray/bin/python bench/shards_bench.py --files 250000 \
        --workdir /work/runs/shards1m --service --serve --json bench/results/shards_1m.json

For each corpus (bench/synthetic.py's Zipfian Markdown files, or SciFact written one file per
document) it builds one collection and a sharded one (in this process, one shard after another;
with ``--ray``, also on a local Ray instance with 1 and 2 build actors), then asks every query
of both (k = 10, BM25; unfiltered, and filtered to one source prefix) and counts answers that
differ in chunk ids or score bits (must be 0); ``--service`` asks the same through two
``groundkit serve`` processes (bench/shards_service.py), ``--serve`` through Ray Serve, and both
together also through ``groundkit serve --ray-collection``. A finished build is reused by a
re-run with the same ``--workdir`` (its ``.NAME.done`` marker holds the build's seconds).
Query times are the mean of a warm pass. Peak memory: a fresh subprocess opens one read view
(the single collection, or one shard with the global statistics), answers every query, and
reports its peak RSS.
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import groundkit
from groundkit import SearchFilter
from groundkit.retrieval import Searcher
from groundkit.retrieval.shard_stats import reduce_statistics
from groundkit.shards import ingest_sharded, load_manifest

K = 10
FILTER_PREFIX = {"synthetic": "001/", "scifact": "0001/"}
"""A source prefix per corpus for the filtered identity count (filtered in every shard)."""


def _answer(response: groundkit.SearchResponse) -> list[tuple[str, str]]:
    return [(r.chunk_id, r.score.hex()) for r in response.results]


def _synthetic(root: Path, files: int) -> tuple[Path, list[str]]:
    from synthetic import queries, write_corpus

    corpus = root / f"synthetic-{files}"
    if not (corpus / ".done").exists():
        write_corpus(corpus, files)
        (corpus / ".done").write_text("ok")
    return corpus, queries(200)


def _scifact(root: Path) -> tuple[Path, list[str]]:
    from groundkit.evaluation.beir import BeirDataset
    from groundkit.evaluation.run import write_corpus

    data = Path(__file__).resolve().parents[2] / "shared" / "data" / "beir" / "scifact"
    dataset = BeirDataset.load(data)
    corpus = root / "scifact"
    write_corpus(dataset, corpus)
    return corpus, list(dataset.queries.values())


_HWM = """
def hwm_mb():
    for line in open("/proc/self/status"):
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
"""
# ru_maxrss survives exec on Linux (a child reports its parent's peak), so VmHWM is read


def _peak_rss_mb(
    index: Path, collection: str, shard: int | None, queries: list[str], *, open_it: bool = True
) -> float:
    """Peak RSS of a fresh process that opens one read view and answers ``queries``."""
    code = (
        _HWM
        + f"""
import json, sys
import groundkit
from groundkit.shards import load_manifest
from groundkit.retrieval.collection_scorer import CollectionScorer
queries = json.loads(sys.stdin.read())
index, collection, shard = {str(index)!r}, {collection!r}, {shard!r}
if not {open_it!r}:
    pass
elif shard is None:
    r = groundkit.Searcher.open(index, collection)
    for q in queries: r.search(q, {K})
else:
    m = load_manifest(index, collection)
    s = CollectionScorer.open_shard(index, m, shard)
    for q in queries:
        terms = s.analyzer.terms(q)
        s.lexical(terms, {K}, s.statistics(terms).df)
print(hwm_mb())
"""
    )
    done = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(queries),
        capture_output=True,
        text=True,
        check=True,
    )
    return float(done.stdout.strip())


def _built(index: Path, collection: str, build: Callable[[], object]) -> float:
    """Build ``collection`` once: a re-run reuses a finished build and reports its time.

    ``index/.COLLECTION.done`` is written after the build returns and holds its seconds, so
    a build that was interrupted is started again (from an empty folder) rather than reused.
    """
    marker = index / f".{collection}.done"
    if marker.exists():
        return float(marker.read_text(encoding="utf-8"))
    shutil.rmtree(index / collection, ignore_errors=True)
    started = time.perf_counter()
    build()
    seconds = round(time.perf_counter() - started, 1)
    marker.write_text(f"{seconds}\n", encoding="utf-8")
    return seconds


def run(
    corpus: Path,
    queries: list[str],
    shards: int,
    workdir: Path,
    ray: list[int],
    serve: bool,
    service: bool = False,
) -> dict:
    index = workdir / f"index-{corpus.name}-{shards}"
    out: dict = {"corpus": corpus.name, "shards": shards, "queries": len(queries)}
    out["build_one_s"] = _built(
        index, "one", lambda: groundkit.ingest(corpus, index_dir=index, collection="one")
    )
    out["build_sharded_local_s"] = _built(
        index,
        "many",
        lambda: ingest_sharded(corpus, shards=shards, index_dir=index, collection="many"),
    )
    manifest = load_manifest(index, "many")
    out["chunks"] = manifest.chunk_count
    out["chunks_per_shard"] = [s.chunk_count for s in manifest.shards]
    out["sqlite_mb_one"] = round((index / "one" / "collection.sqlite").stat().st_size / 2**20, 1)
    out["sqlite_mb_per_shard"] = [
        round((index / "many" / s.name / "collection.sqlite").stat().st_size / 2**20, 1)
        for s in manifest.shards
    ]
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        differ = sum(_answer(one.search(q, K)) != _answer(many.search(q, K)) for q in queries)
        out["answers_differing"] = differ
        where = SearchFilter(source_prefix=FILTER_PREFIX.get(corpus.name.split("-")[0], ""))
        out["filtered_answers_differing"] = sum(
            _answer(one.search(q, K, "bm25", where=where))
            != _answer(many.search(q, K, "bm25", where=where))
            for q in queries
        )
        out["filter"] = where.to_dict()
        for name, searcher in (("one", one), ("sharded", many)):
            started = time.perf_counter()
            for q in queries:
                searcher.search(q, K)
            out[f"query_ms_{name}"] = round(
                (time.perf_counter() - started) * 1000 / len(queries), 3
            )
        # the fan-out's parts: one shard's lexical step alone (what a replica does per query)
        searcher0 = many._local().scorers[0]
        started = time.perf_counter()
        for q in queries:
            terms = many.analyzer.terms(q)
            searcher0.lexical(terms, K, _df(many, terms))
        out["query_ms_one_shard_step"] = round(
            (time.perf_counter() - started) * 1000 / len(queries), 3
        )
    out["peak_rss_mb_imports_only"] = _peak_rss_mb(index, "one", None, [], open_it=False)
    out["peak_rss_mb_one"] = _peak_rss_mb(index, "one", None, queries)
    out["peak_rss_mb_shard0"] = _peak_rss_mb(index, "many", 0, queries)
    for workers in ray:
        import ray as ray_module
        from groundkit_ray import build_on_ray

        if not ray_module.is_initialized():
            ray_module.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
        name = f"ray{workers}"
        started = time.perf_counter()
        build_on_ray(corpus, collection=name, shards=shards, index_dir=index, workers=workers)
        out[f"build_ray_{workers}_workers_s"] = round(time.perf_counter() - started, 1)
        with (
            Searcher.open(index, name) as built,
            groundkit.Searcher.open(index, "one") as one,
        ):
            out[f"ray_{workers}_answers_differing"] = sum(
                _answer(one.search(q, K)) != _answer(built.search(q, K)) for q in queries
            )
    _progress(out)
    if service:
        from shards_service import compare_service

        out.update(compare_service(index, queries, K, where))
        _progress(out)
    if serve:
        out.update(_serve(index, queries))
        _progress(out)
    if serve and service:
        from shards_service import compare_service_ray

        out.update(compare_service_ray(index, queries, K))
    return out


def _progress(out: dict) -> None:
    """The figures so far, on stderr: a long run's finished parts survive a later failure."""
    print(json.dumps(out), file=sys.stderr, flush=True)


def _serve(index: Path, queries: list[str]) -> dict[str, float | int]:
    """Ray Serve: one deployment per shard on this machine; warm queries through the gather."""
    import ray as ray_module
    from groundkit_ray import serve_sharded

    if not ray_module.is_initialized():
        ray_module.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    started = time.perf_counter()
    search = serve_sharded("many", index_dir=index)
    deployed = time.perf_counter() - started
    with groundkit.Searcher.open(index, "one") as one:
        differ = sum(_answer(one.search(q, K)) != _answer(search(q, K)) for q in queries)
    started = time.perf_counter()
    for q in queries:
        search(q, K)
    per_query = (time.perf_counter() - started) * 1000 / len(queries)
    from ray import serve as ray_serve

    ray_serve.shutdown()  # the replicas' memory back before anything else runs
    ray_module.shutdown()
    return {
        "serve_deploy_s": round(deployed, 1),
        "serve_answers_differing": differ,
        "serve_query_ms": round(per_query, 3),
    }


def _df(many: Searcher, terms: list[str]) -> dict[str, int]:
    """The gather's first step alone: every shard's statistics of ``terms``, reduced."""
    scorers = many._local().scorers
    return dict(reduce_statistics([s.statistics(terms) for s in scorers]).df)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--files", type=int, default=0, help="synthetic files (~4.5 chunks each)")
    parser.add_argument("--scifact", action="store_true")
    parser.add_argument("--shards", type=int, default=4)
    parser.add_argument("--ray", default="", help="Ray build actors to time, e.g. 1,2")
    parser.add_argument("--serve", action="store_true", help="also serve on Ray Serve, timed")
    parser.add_argument(
        "--service",
        action="store_true",
        help="also compare through two `groundkit serve` processes (with --serve: and through "
        "`groundkit serve --ray-collection`)",
    )
    parser.add_argument("--workdir", default=str(Path(tempfile.gettempdir()) / "gk-shards-bench"))
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    workdir = Path(args.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    ray = [int(n) for n in args.ray.split(",") if n]
    results = []
    if args.scifact:
        results.append(run(*_scifact(workdir), args.shards, workdir, ray, args.serve, args.service))
    if args.files:
        results.append(
            run(
                *_synthetic(workdir, args.files),
                args.shards,
                workdir,
                ray,
                args.serve,
                args.service,
            )
        )
    text = json.dumps(results, indent=2)
    print(text)
    if args.json:
        Path(args.json).write_text(text + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()
