"""Building and updating a sharded collection: ingest each shard's share, then seal.

``ingest_shard`` (the map) ingests the sources routed to one shard into that shard's ordinary
collection; it touches nothing else, so shards can be built at once in separate processes or
machines. ``seal_shards`` (the reduce) reads every shard's read view, checks they share one
analyzer and embedding identity, and writes the manifest with the reduced statistics. An
incremental ingest is the same two steps over the changed corpus: each shard replaces,
skips or removes its own documents and the seal records the new statistics.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.collection import open_reader, open_store
from groundkit.config import DEFAULT_INDEX_DIR, IngestSettings
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError, ShardUnavailableError
from groundkit.ingestion.discover import require_source
from groundkit.ingestion.indexer import Indexer, IngestProgress
from groundkit.ingestion.report import IngestReport
from groundkit.shards.corpus import corpus_source, read_jsonl, write_records
from groundkit.shards.routing import shard_selector
from groundkit.shards.seal import content_stamp
from groundkit.shards.shard_manifest import (
    ShardManifest,
    ShardRecord,
    load_manifest,
    save_manifest,
    shard_name,
    shards_dir,
)

__all__ = [
    "ShardPlan",
    "ShardedIngestReport",
    "ingest_shard",
    "ingest_sharded",
    "recorded_analyzer",
    "seal_shards",
    "shard_count",
]

MAX_SHARDS = 4096


@dataclass(slots=True)
class ShardedIngestReport:
    """Each shard's ingest report, the manifest sealed after them, and the self-calibration
    the sealed collection recorded (adr/0072; None: not calibrated)."""

    manifest: ShardManifest
    reports: list[IngestReport] = field(default_factory=list)
    calibration: dict[str, Any] | None = None

    def calibrated(
        self, index_dir: str | Path, embedder: Embedder | None = None
    ) -> ShardedIngestReport:
        """This report, after the sealed collection calibrated itself (``recalibrate``: the
        pseudo queries of all its chunks, the same record beside every shard)."""
        from groundkit.evaluation.self_calibration import recalibrate

        found = recalibrate(index_dir, self.manifest.collection, embedder)
        return replace(self, calibration=found)

    def to_dict(self) -> dict[str, object]:
        return {
            "collection": self.manifest.collection,
            "shards": len(self.manifest.shards),
            "generation": self.manifest.generation,
            "chunk_count": self.manifest.chunk_count,
            "indexed": sum(len(r.indexed) for r in self.reports),
            "replaced": sum(len(r.replaced) for r in self.reports),
            "unchanged": sum(len(r.unchanged) for r in self.reports),
            "removed": sum(len(r.removed) for r in self.reports),
            "refused": [
                {"source": x.source, "reason": x.reason, "message": x.message}
                for r in self.reports
                for x in r.refused
            ],
            "calibration": self.calibration,
        }


def shard_count(index_dir: str | Path, collection: str, shards: int | None) -> int:
    """The number of shards to build: the manifest's for an existing collection (a different
    ``shards`` is refused: re-routing is a rebuild), else ``shards``."""
    folder = shards_dir(index_dir, collection)
    if (folder / "shards.json").exists():
        recorded = len(load_manifest(index_dir, collection).shards)
        if shards is not None and shards != recorded:
            raise ConfigurationError(
                f"sharded collection {collection!r} has {recorded} shards, not {shards}; "
                "changing the number re-routes every document: build into a new collection",
                subject=collection,
            )
        return recorded
    if shards is None:
        raise ConfigurationError(
            f"sharded collection {collection!r} does not exist yet: give the number of shards "
            "(--shards N)",
            subject=collection,
        )
    if isinstance(shards, bool) or not isinstance(shards, int) or not 1 <= shards <= MAX_SHARDS:
        raise ConfigurationError(
            f"shards must be an integer from 1 to {MAX_SHARDS}, got {shards!r}"
        )
    return shards


def recorded_analyzer(
    index_dir: str | Path, collection: str, analyzer: Analyzer | None
) -> Analyzer | None:
    """``analyzer``, or the one an existing manifest records (so a shard still empty is bound
    to the analyzer of the others)."""
    if analyzer is not None or not (shards_dir(index_dir, collection) / "shards.json").exists():
        return analyzer
    recorded = load_manifest(index_dir, collection).analyzer
    return None if recorded is None else Analyzer.from_identity(recorded, subject=collection)


def ingest_shard(  # noqa: PLR0913  ingest's keywords, and which shard of how many
    path: str | Path,
    shard: int,
    shards: int,
    *,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str,
    analyzer: Analyzer | None = None,
    settings: IngestSettings | None = None,
    embedder: Embedder | None = None,
    vector_store: str | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
) -> IngestReport:
    """The map: ingest the sources of ``path`` routed to ``shard`` into that shard."""
    from groundkit.vectors.store_registry import refresh_vector_store

    require_source(path)
    folder = shards_dir(index_dir, collection)
    store = open_store(folder, shard_name(shard))
    try:
        indexer = Indexer(store, analyzer=analyzer, settings=settings, embedder=embedder)
        report = indexer.ingest(path, progress=progress, select=shard_selector(shard, shards))
    finally:
        store.close()
    with open_reader(folder, shard_name(shard)) as reader:
        refresh_vector_store(reader, vector_store, location=reader.location)
    return report


def seal_shards(index_dir: str | Path, collection: str, shards: int) -> ShardManifest:
    """The reduce: read every shard's read view and write the manifest (atomically)."""
    folder = shards_dir(index_dir, collection)
    records: list[ShardRecord] = []
    analyzers: set[str] = set()
    embeddings: set[str | None] = set()
    analyzer: dict[str, object] | None = None
    for shard in range(shards):
        name = shard_name(shard)
        if not (folder / name / "collection.sqlite").is_file():
            raise ShardUnavailableError(
                f"shard {name} of {collection!r} was never built ({folder / name} is missing)",
                subject=str(folder / name),
            )
        with open_reader(folder, name) as reader:
            documents, content = content_stamp(reader, shard=shard, shards=shards)
            records.append(
                ShardRecord(
                    name,
                    reader.generation,
                    reader.chunk_count,
                    reader.total_length,
                    documents,
                    content,
                )
            )
            if reader.analyzer_identity is not None:
                analyzer = dict(reader.analyzer_identity)
                analyzers.add(repr(sorted(analyzer.items())))
            embedding = reader.embedding_identity
            if reader.chunk_count:  # a shard the routing left empty has embedded nothing
                embeddings.add(None if embedding is None else embedding.to_json())
    if len(analyzers) > 1 or len(embeddings) > 1:
        raise ShardUnavailableError(
            f"the shards of {collection!r} were built with different analyzers or embedders; "
            "rebuild them into a new collection with one setting",
            subject=collection,
        )
    previous = 0
    if (folder / "shards.json").exists():
        previous = load_manifest(index_dir, collection).generation
    manifest = ShardManifest(
        collection=collection,
        shards=tuple(records),
        analyzer=analyzer,
        embedding=embeddings.pop() if embeddings else None,
        generation=previous + 1,
    )
    save_manifest(index_dir, manifest)
    return manifest


def ingest_sharded(  # noqa: PLR0913  ingest's keywords, and how many shards
    path: str | Path,
    *,
    shards: int | None = None,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str,
    analyzer: Analyzer | None = None,
    settings: IngestSettings | None = None,
    embedder: Embedder | None = None,
    vector_store: str | None = None,
    progress: Callable[[IngestProgress], None] | None = None,
    calibrate: bool = True,
) -> ShardedIngestReport:
    """Build or update sharded collection ``collection`` from ``path`` in this process: every
    shard's ingest one after another, then the seal (Ray runs the same steps in parallel),
    then, with ``calibrate``, the self-calibration every shard records alike (``ingest``'s)."""
    count = shard_count(index_dir, collection, shards)
    require_source(path)
    analyzer = recorded_analyzer(index_dir, collection, analyzer)
    reports = [
        ingest_shard(
            path,
            shard,
            count,
            index_dir=index_dir,
            collection=collection,
            analyzer=analyzer,
            settings=settings,
            embedder=embedder,
            vector_store=vector_store,
            progress=progress,
        )
        for shard in range(count)
    ]
    sealed = ShardedIngestReport(seal_shards(index_dir, collection, count), reports)
    return sealed.calibrated(index_dir, embedder) if calibrate else sealed


@dataclass(frozen=True, slots=True)
class ShardPlan:
    """A sharded build as a shard engine schedules it (adr/0067): ``ingest`` each shard, in any
    process or machine that sees ``index_dir`` and ``corpus``, then ``seal`` once. It pickles,
    so an engine hands it to its workers; ``make`` checks the arguments."""

    corpus: Path
    """The folder ingested (a JSONL corpus's files are written there first)."""
    collection: str
    shards: int
    """How many shards: the manifest's for an existing collection."""
    index_dir: Path
    jsonl: Path | None = None
    """The JSONL corpus to write out as files under ``corpus`` first (``read_jsonl`` and
    ``write_records``, in as many tasks as the engine likes), or None."""

    @classmethod
    def make(
        cls,
        source: str | Path,
        *,
        collection: str,
        shards: int | None = None,
        index_dir: str | Path = DEFAULT_INDEX_DIR,
        corpus_dir: str | Path | None = None,
    ) -> ShardPlan:
        """The plan to build or update ``collection`` from ``source`` (a folder, or a
        ``.jsonl`` file written out under ``corpus_dir``); ``shards`` is needed for a new
        collection, and must match an existing one's."""
        count = shard_count(index_dir, collection, shards)
        corpus = corpus_source(source, corpus_dir)
        jsonl = None if corpus == Path(source) else Path(source)
        return cls(corpus, collection, count, Path(index_dir), jsonl)

    def resolved(self) -> ShardPlan:
        """The same plan with absolute paths, for workers started in other folders."""
        jsonl = None if self.jsonl is None else self.jsonl.resolve()
        corpus, index_dir = self.corpus.resolve(), self.index_dir.resolve()
        return ShardPlan(corpus, self.collection, self.shards, index_dir, jsonl)

    @staticmethod
    def read_jsonl(path: str | Path) -> Iterable[dict[str, Any]]:
        """The records of a JSONL corpus, one per non-empty line (``ConfigurationError``
        naming a bad line's number)."""
        return read_jsonl(Path(path))

    @staticmethod
    def write_records(records: Iterable[Mapping[str, Any]], folder: str | Path, where: str) -> int:
        """Write each record (``_id`` or ``id``, ``text``, optionally ``title``) as a file
        under ``folder`` whose name derives from its id alone; ``where`` names the corpus in
        errors. Returns how many."""
        return write_records(records, Path(folder), where)

    def ingest(
        self,
        shard: int,
        *,
        settings: IngestSettings | None = None,
        embedder: Embedder | None = None,
        vector_store: str | None = None,
    ) -> IngestReport:
        """The map: ingest the sources of ``corpus`` routed to ``shard`` into that shard,
        with the analyzer an existing manifest records."""
        return ingest_shard(
            self.corpus,
            shard,
            self.shards,
            index_dir=self.index_dir,
            collection=self.collection,
            analyzer=recorded_analyzer(self.index_dir, self.collection, None),
            settings=settings,
            embedder=embedder,
            vector_store=vector_store,
        )

    def seal(
        self,
        reports: Sequence[IngestReport],
        *,
        calibrate: bool = True,
        embedder: Embedder | None = None,
    ) -> ShardedIngestReport:
        """The reduce, once every shard is ingested: the manifest with the reduced
        statistics, and the shards' ``reports`` in shard order; then, with ``calibrate``, the
        collection's self-calibration (``embedder``: the one it was built with, where it is
        not a registered one that ``Searcher.open`` finds itself)."""
        if len(reports) != self.shards:
            raise ConfigurationError(
                f"{len(reports)} of {self.shards} shards reported; nothing was sealed"
            )
        sealed = ShardedIngestReport(
            seal_shards(self.index_dir, self.collection, self.shards), list(reports)
        )
        return sealed.calibrated(self.index_dir, embedder) if calibrate else sealed
