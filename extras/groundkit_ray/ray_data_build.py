"""A sharded collection built on Ray Data: shards ingested at once, then sealed.

The corpus (a folder, or a JSONL file first written out as one file per record, in parallel)
is split by the content-derived routing; each shard's share is chunked, analyzed, embedded and
written by one actor of a pool (``workers`` actors, each asking for a GPU when the cluster has
GPUs and an embedder is used, so embedding runs there); the driver then reduces the shards'
statistics into the manifest. The steps are ``groundkit.extend.ShardPlan``'s, the same pure
functions ``ingest_sharded`` runs in one process, so the result is the same collection.
"""

from __future__ import annotations

import pickle
from pathlib import Path
from typing import Any

from groundkit import DEFAULT_INDEX_DIR, IngestSettings, resolve_embedder
from groundkit.extend import ConfigurationError, ShardedIngestReport, ShardPlan
from groundkit_ray._ray import require_initialized

__all__ = ["build_on_ray", "jsonl_to_folder"]


class _ShardIngest:
    """An actor of the build's pool: ingests the shards it is handed, one batch row each."""

    def __init__(
        self, plan: bytes, settings: bytes, embedder: str | None, vector_store: str | None
    ) -> None:
        self._plan: ShardPlan = pickle.loads(plan)
        self._settings: IngestSettings = pickle.loads(settings)
        self._embedder = None if embedder is None else resolve_embedder(embedder)
        self._vector_store = vector_store

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        reports = []
        for shard in batch["shard"]:
            report = self._plan.ingest(
                int(shard),
                settings=self._settings,
                embedder=self._embedder,
                vector_store=self._vector_store,
            )
            reports.append(pickle.dumps(report))
        return {"shard": list(batch["shard"]), "report": reports}


def jsonl_to_folder(jsonl: str | Path, folder: str | Path, *, workers: int = 2) -> int:
    """Write a JSONL corpus as one text file per record under ``folder`` (Ray Data, in
    ``workers`` parallel tasks); returns the number of records."""
    ray = require_initialized()
    path, out = Path(jsonl), Path(folder)
    records = list(ShardPlan.read_jsonl(path))  # validated here: a bad line names its number
    dataset = ray.data.from_items(records, override_num_blocks=max(1, workers))

    def write(batch: dict[str, Any]) -> dict[str, Any]:
        rows = [
            dict(zip(batch, values, strict=True)) for values in zip(*batch.values(), strict=True)
        ]
        return {"written": [ShardPlan.write_records(rows, out, str(path))]}

    done = dataset.map_batches(
        write, batch_format="numpy", compute=ray.data.TaskPoolStrategy(size=max(1, workers))
    )
    return sum(int(row["written"]) for row in done.take_all())


def build_on_ray(  # noqa: PLR0913  ShardBuild's keywords, and the ingest settings
    source: str | Path,
    *,
    collection: str,
    shards: int | None = None,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    workers: int = 2,
    settings: IngestSettings | None = None,
    embedder: str | None = None,
    vector_store: str | None = None,
    corpus_dir: str | Path | None = None,
    address: str | None = None,
    calibrate: bool = True,
) -> ShardedIngestReport:
    """Build or update sharded collection ``collection`` from ``source`` on Ray.

    ``source``: a folder, or a ``.jsonl`` file written out under ``corpus_dir`` first (the
    files the citations point at). ``embedder``: a registered name or model folder, resolved
    inside each actor. ``address``: a Ray cluster (default: the one this process is connected
    to, or a new local instance). ``calibrate``: the sealed collection then calibrates where
    it says "nothing here", as a local build does (adr/0072).
    """
    ray = require_initialized(address)
    if isinstance(workers, bool) or not isinstance(workers, int) or workers < 1:
        raise ConfigurationError(f"workers must be an integer >= 1, got {workers!r}")
    plan = ShardPlan.make(
        source, collection=collection, shards=shards, index_dir=index_dir, corpus_dir=corpus_dir
    )
    count, path = plan.shards, plan.corpus
    if plan.jsonl is not None:
        jsonl_to_folder(plan.jsonl, path.resolve(), workers=workers)
    if not path.exists():
        raise ConfigurationError(f"{path}: no such file or directory", subject=str(path))
    gpus = float(ray.cluster_resources().get("GPU", 0.0)) if embedder is not None else 0.0
    per_actor = 0.0 if gpus <= 0 else min(1.0, gpus / min(workers, count))
    dataset = ray.data.from_items(
        [{"shard": shard} for shard in range(count)], override_num_blocks=count
    )
    done = dataset.map_batches(
        _ShardIngest,
        fn_constructor_kwargs={
            "plan": pickle.dumps(plan.resolved()),
            "settings": pickle.dumps(settings or IngestSettings()),
            "embedder": embedder,
            "vector_store": vector_store,
        },
        batch_size=1,
        batch_format="numpy",
        compute=ray.data.ActorPoolStrategy(size=min(workers, count)),
        num_cpus=1,
        num_gpus=per_actor,
    )
    rows = sorted(done.take_all(), key=lambda row: int(row["shard"]))
    reports = [pickle.loads(row["report"]) for row in rows]
    # the sealed collection calibrates itself as a local build does (adr/0072), with the
    # embedder resolved here too, where the calibration embeds its queries
    model = resolve_embedder(embedder) if calibrate and embedder is not None else None
    return plan.seal(reports, calibrate=calibrate, embedder=model)
