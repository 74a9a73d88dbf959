"""``StoredCollection``: a collection stored under an index folder, by name, for whoever hosts it.

The service, a shard engine or a program opens its ``Searcher``, asks its generation and whether
its file changed, reads its status, audits it and lays out its shards through this one handle,
ordinary or sharded alike; file names, the shard manifest and SQLite's stamps stay the core's
business (adr/0067).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundkit.collection import (
    FILE_NAME,
    MANIFEST_FILE,
    collection_file,
    collection_status,
    open_reader,
)
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR, BM25Params
from groundkit.errors import CorruptCollectionError, ShardUnavailableError
from groundkit.file_state import FileState, file_state
from groundkit.retrieval.audit import CollectionVerification, verify_reader
from groundkit.retrieval.searcher import Searcher, sharded_searcher
from groundkit.shards.shard_manifest import ShardManifest, load_manifest, shard_name
from groundkit.store.sqlite.freshness import (
    GENERATIONS,
    quick_check,
    refuse_damaged,
    remember_damage,
)
from groundkit.store.sqlite.stamp import altered_since_stamp

if TYPE_CHECKING:
    from groundkit.embedding.embedder import Embedder
    from groundkit.retrieval.collection_scorer import CollectionScorer
    from groundkit.retrieval.rerank import Reranker
    from groundkit.retrieval.transport import Transport

__all__ = ["StoredCollection", "list_collections"]


def list_collections(index_dir: str | Path = DEFAULT_INDEX_DIR) -> list[str]:
    """The names of the collections (ordinary and sharded) under ``index_dir``, sorted; [] if
    there is no such folder."""
    root = Path(index_dir)
    if not root.is_dir():
        return []
    found = {p.parent.name for p in root.glob(f"*/{FILE_NAME}") if p.is_file()}
    found |= {p.parent.name for p in root.glob(f"*/{MANIFEST_FILE}") if p.is_file()}
    return sorted(found)


def _refuse_altered(path: Path, what: str) -> None:
    """A file changed outside any writer since its last one stamped it is not served from an
    older read view: the request fails closed until ``groundkit check`` says why."""
    if altered_since_stamp(path):
        raise CorruptCollectionError(
            f"{what} ({path}) was changed outside groundkit since its last ingest; it is not "
            "served until `groundkit check` passes (re-ingest, or restore the file)",
            subject=str(path),
        )


def _summed(audits: list[CollectionVerification]) -> CollectionVerification:
    """The shards' whole-collection checks as one (a single collection's is itself)."""
    if len(audits) == 1:
        return audits[0]
    return CollectionVerification(
        checked=sum(a.checked for a in audits),
        verified=sum(a.verified for a in audits),
        drifted=sum(a.drifted for a in audits),
        unresolvable=sum(a.unresolvable for a in audits),
        integrity_problems=tuple(p for a in audits for p in a.integrity_problems),
        failures=tuple(f for a in audits for f in a.failures),
    )


class StoredCollection:
    """Collection ``name`` under ``index_dir``, ordinary or sharded (its folder holds a shard
    manifest). Making one opens nothing (a bad name is a ``ConfigurationError``); each method
    reads the collection as it is now and fails closed: ``CollectionNotFoundError``,
    ``CorruptCollectionError``, ``ShardUnavailableError``."""

    __slots__ = ("_file", "index_dir", "name")

    def __init__(
        self, index_dir: str | Path = DEFAULT_INDEX_DIR, name: str = DEFAULT_COLLECTION
    ) -> None:
        self._file = collection_file(index_dir, name)
        self.index_dir = Path(index_dir)
        self.name = name

    def __repr__(self) -> str:
        return f"StoredCollection({str(self.index_dir)!r}, {self.name!r})"

    @property
    def sharded(self) -> bool:
        """Whether it is a sharded collection now."""
        return (self._file.parent / MANIFEST_FILE).is_file()

    def generation(self) -> int:
        """Its committed generation now, from two ``stat`` calls while its file is unchanged
        (no SQLite connection, adr/0057). Refused (``CorruptCollectionError``) when a file was
        changed outside groundkit since its last writer (adr/0040) or was found damaged by
        ``open(checked=True)`` and is unchanged since; a sharded one's missing shard is a
        ``ShardUnavailableError``."""
        if not self.sharded:
            _refuse_altered(self._file, f"collection {self.name!r}")
            refuse_damaged(self._file)
            return GENERATIONS.generation(self._file, self._read_generation)
        manifest = load_manifest(self.index_dir, self.name)
        for shard in range(len(manifest.shards)):
            path = collection_file(self._file.parent, shard_name(shard))
            _refuse_altered(path, f"shard {shard_name(shard)} of {self.name!r}")
            if not path.is_file():
                raise ShardUnavailableError(
                    f"shard {shard_name(shard)} of sharded collection {self.name!r} is "
                    f"missing ({path}); a sharded search never answers from the other "
                    "shards alone: restore it or rebuild with `groundkit shard build`",
                    subject=str(path),
                )
        return manifest.generation

    def _read_generation(self) -> int:
        with open_reader(self.index_dir, self.name) as reader:
            return reader.generation

    def state(self) -> FileState:
        """Its file's identity, size and modification time (None for a sharded collection,
        which is no one file): taken before ``open`` and compared later, a difference at the
        same generation means the file changed with no commit to explain it (a restore, damage
        in place), and the host reopens it with ``checked=True``."""
        return None if self.sharded else file_state(self._file)

    def open(
        self,
        *,
        reranker: Reranker | None = None,
        checked: bool = False,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        vector_store: str | None = None,
    ) -> Searcher:
        """Its ``Searcher`` (``Searcher.open``'s options). ``checked``: SQLite's
        ``quick_check`` first; a damaged file is refused, and ``generation`` refuses it until
        the file changes (adr/0056)."""
        if not checked or self.sharded:
            return Searcher.open(
                self.index_dir,
                self.name,
                bm25=bm25,
                embedder=embedder,
                reranker=reranker,
                vector_store=vector_store,
            )
        try:
            quick_check(self._file, self.name)
            return self.open(
                reranker=reranker, bm25=bm25, embedder=embedder, vector_store=vector_store
            )
        except CorruptCollectionError as exc:
            remember_damage(self._file, exc)
            raise

    def status(self) -> dict[str, Any]:
        """What it holds now: ``generation``, ``chunks`` and ``embedding`` (the identity's
        fields, None if lexical); an ordinary one also ``documents`` and the rest of
        ``groundkit status``, a sharded one ``shards`` (its count)."""
        if not self.sharded:
            return collection_status(self.index_dir, self.name)
        manifest = load_manifest(self.index_dir, self.name)
        return {
            "collection": self.name,
            "generation": manifest.generation,
            "chunks": manifest.chunk_count,
            "shards": len(manifest.shards),
            "embedding": None if manifest.embedding is None else json.loads(manifest.embedding),
        }

    def verify(
        self, *, progress: Callable[[int, int], None] | None = None
    ) -> tuple[int, CollectionVerification]:
        """Re-check every citation against its source and the index against its chunks, every
        shard's for a sharded one: (the generation checked, the audit). ``progress(done,
        total)`` as ``verify_collection``'s (a shard's counts, shard after shard)."""
        if self.sharded:
            with Searcher.open(self.index_dir, self.name) as searcher:
                audits = [verify_reader(r, progress=progress) for r in searcher.readers]
                return searcher.generation, _summed(audits)
        with open_reader(self.index_dir, self.name) as reader:
            return reader.generation, verify_reader(reader, progress=progress)

    # --- a sharded collection's layout, for an engine that serves its shards elsewhere ---

    def _manifest(self) -> ShardManifest:
        return load_manifest(self.index_dir, self.name)

    def shard_names(self) -> tuple[str, ...]:
        """Its shards' names in shard order (``CollectionNotFoundError`` if not sharded)."""
        return tuple(record.name for record in self._manifest().shards)

    def open_shard(
        self,
        shard: int,
        *,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        vector_store: str | None = None,
    ) -> CollectionScorer:
        """The scorer of shard ``shard`` (0-based), which answers each ``Step`` a ``Transport``
        sends it (a Ray replica holds one), scoring with the whole collection's statistics."""
        from groundkit.retrieval.collection_scorer import CollectionScorer

        return CollectionScorer.open_shard(
            self.index_dir,
            self._manifest(),
            shard,
            bm25=bm25,
            embedder=embedder,
            vector_store=vector_store,
        )

    def searcher_over(
        self,
        transport: Transport,
        *,
        bm25: BM25Params | None = None,
        reranker: Reranker | None = None,
    ) -> Searcher:
        """The ``Searcher`` of this sharded collection over the shards ``transport`` reaches
        (each a scorer from ``open_shard``, wherever it lives): one collection's answers."""
        return sharded_searcher(self._manifest(), transport, bm25=bm25, reranker=reranker)
