"""One shard, searched as part of its sharded collection: the unit a replica serves.

A ``ShardSearcher`` answers four calls, each small enough to cross a process boundary as
plain data: its statistics for some terms (the map), its best lexical or dense hits scored
with collection-wide statistics, and the records (with citations) of chunks the gather kept.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from groundkit.collection import collection_file, open_reader
from groundkit.config import BM25Params
from groundkit.contracts import Citation, Document, SearchResult
from groundkit.embedding.embedder import Embedder
from groundkit.errors import (
    CollectionNotFoundError,
    MissingRecordError,
    RetrievalError,
    ShardUnavailableError,
)
from groundkit.identities import bind_analyzer
from groundkit.index.bm25 import Accelerator, BM25Index
from groundkit.index.ties import CachedTieKeys
from groundkit.retrieval.citations import Verification, verify_document_citation
from groundkit.retrieval.dense import DenseLeg
from groundkit.retrieval.filtering import FilterCache
from groundkit.retrieval.join import JoinedRecords, join_results
from groundkit.retrieval.request import SearchFilter, SearchMode
from groundkit.shards.merge import ShardHit
from groundkit.shards.seal import check_shard
from groundkit.shards.shard_manifest import ShardManifest, shard_name, shards_dir
from groundkit.shards.shard_stats import ShardStatistics, collection_stats, map_statistics
from groundkit.store.protocols import CollectionReader

__all__ = ["ShardSearcher"]


class ShardSearcher:
    """Scores one shard's snapshot with the statistics of the whole sharded collection."""

    def __init__(
        self,
        reader: CollectionReader,
        shard: int,
        manifest: ShardManifest,
        *,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        vector_store: str | None = None,
        accelerator: Accelerator = "auto",
    ) -> None:
        record = manifest.shards[shard]
        location = reader.location
        try:
            if reader.generation != record.generation:
                raise ShardUnavailableError(
                    f"shard {location} is at generation {reader.generation} but the manifest "
                    f"of {manifest.collection!r} recorded {record.generation}: it changed outside "
                    "a sharded ingest (or one did not finish); re-run `groundkit shard build` "
                    "with the same source",
                    subject=location,
                )
            check_shard(reader, shard, manifest)
            self.analyzer = bind_analyzer(location, reader.analyzer_identity, None)
            self._dense = DenseLeg(reader, embedder, location=location, vector_store=vector_store)
        except BaseException:
            reader.close()
            raise
        self.shard = shard
        self.location = location
        self._reader = reader
        self._records = JoinedRecords(reader)
        self._df: dict[str, int] = {}
        stats = collection_stats(manifest.chunk_count, manifest.total_length, self._global_df)
        self._lexical = BM25Index(reader, bm25, accelerator=accelerator, stats=stats)
        self._tie_keys = CachedTieKeys.of(reader)
        self._filters = FilterCache(reader)

    @classmethod
    def open(
        cls,
        index_dir: str | Path,
        manifest: ShardManifest,
        shard: int,
        **options: object,
    ) -> ShardSearcher:
        """Open shard ``shard`` of ``manifest`` (``ShardUnavailableError`` when it is missing)."""
        folder = shards_dir(index_dir, manifest.collection)
        name = shard_name(shard)
        if not collection_file(folder, name).is_file():
            raise ShardUnavailableError(
                f"shard {name} of sharded collection {manifest.collection!r} is missing "
                f"({collection_file(folder, name)}); a sharded search never answers from the "
                "other shards alone: restore it or rebuild with `groundkit shard build`",
                subject=str(collection_file(folder, name)),
            )
        try:
            reader = open_reader(folder, name)
        except CollectionNotFoundError as exc:
            raise ShardUnavailableError(exc.message, subject=exc.subject) from None
        return cls(reader, shard, manifest, **options)  # type: ignore[arg-type]

    @property
    def generation(self) -> int:
        return self._reader.generation

    @property
    def accelerator(self) -> str:
        return self._lexical.accelerator

    @property
    def dense(self) -> DenseLeg:
        return self._dense

    @property
    def reader(self) -> CollectionReader:
        return self._reader

    @property
    def default_mode(self) -> SearchMode:
        """As one collection's (``DenseLeg.default_mode``): every shard shares the embedding."""
        return self._dense.default_mode

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor of a dense or hybrid search and its source (adr/0024)."""
        return self._dense.floor(mode, given)

    def lexical_share(self, given: float | None) -> tuple[float, str]:
        """Hybrid's lexical evidence bar and its source (adr/0049)."""
        return self._dense.lexical_share(given)

    def admitted(self, where: SearchFilter) -> int:
        """How many of this shard's chunks ``where`` admits."""
        return len(self._filters.allowed(where))

    def _allowed(self, where: SearchFilter | None) -> frozenset[int] | None:
        return None if where is None else self._filters.allowed(where)

    def _global_df(self, term: str) -> int:
        found = self._df.get(term)
        if found is None:  # the gather sends every query term's df before scoring
            raise ShardUnavailableError(
                f"shard {self.location}: no collection-wide document frequency for a query term; "
                "scoring with the shard's own would change the ranking",
                subject=self.location,
            )
        return found

    def statistics(self, terms: Sequence[str]) -> ShardStatistics:
        """The map: this shard's chunk count, total length and document frequency of ``terms``."""
        reader = self._reader
        return map_statistics(
            reader.chunk_count, reader.total_length, self._lexical.local_df, terms
        )

    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        *,
        score_threshold: float | None = None,
        where: SearchFilter | None = None,
    ) -> tuple[list[ShardHit], str]:
        """This shard's ``k`` best chunks for analyzed ``terms``, scored with the collection's
        document frequencies ``df`` (the reduce of every shard's ``statistics``), and the
        scoring path that found them; ``where`` admits chunks here, before the merge."""
        for term, count in df.items():
            if self._df.setdefault(term, count) != count:
                raise ShardUnavailableError(
                    f"shard {self.location}: document frequency of a term changed between "
                    "queries; the shards' snapshots are out of step",
                    subject=self.location,
                )
        try:
            hits = self._lexical.top_k(
                terms,
                k,
                self._tie_keys,
                score_threshold=score_threshold,
                allowed=self._allowed(where),
            )
            return self._with_ties(hits.pairs()), hits.path
        except KeyError as exc:
            raise self._missing(int(exc.args[0])) from None

    def dense_hits(
        self,
        query: str,
        mode: str,
        k: int,
        *,
        min_score: float | None,
        where: SearchFilter | None = None,
    ) -> tuple[list[ShardHit], str | None]:
        """This shard's ``k`` chunks most similar to ``query`` (similarity needs no
        collection statistics, so each shard's list is already final), and the vector store
        that found them (None for a shard the routing left empty)."""
        if self._dense.manifest is None and not self._reader.chunk_count:
            return [], None  # a shard the routing left empty: nothing embedded, nothing similar
        try:
            found = self._dense.search(
                query,
                mode,
                k,
                min_score=min_score,
                tie_keys=self._tie_keys,
                allowed=self._allowed(where),
            )
            return self._with_ties(found), self._dense.vector_store
        except KeyError as exc:
            raise self._missing(int(exc.args[0])) from None

    def _with_ties(self, ranked: Sequence[tuple[int, float]]) -> list[ShardHit]:
        ties = self._tie_keys([key for key, _ in ranked])
        return [ShardHit(score, ties[key], self.shard, key) for key, score in ranked]

    def results(self, ranked: Sequence[tuple[int, float, int]]) -> list[SearchResult]:
        """Results with citations for (chunk key, score, global rank) triples of this shard."""
        return join_results(self._records, ranked, self._missing)

    def document(self, document_id: str, source: str) -> Document:
        """Document ``document_id`` of ``source`` (``RetrievalError`` if this shard lacks it)."""
        found = self._reader.documents([document_id]).get(document_id)
        if found is None:
            raise RetrievalError(
                f"document {document_id} of {source} is not in shard {self.location}",
                subject=source,
                verdict="unresolvable",
            )
        return found

    def verify(self, citation: Citation, document_id: str) -> Verification:
        """Re-read ``citation`` (of document ``document_id``, held here) from its source."""
        document = self.document(document_id, citation.source)
        return verify_document_citation(citation, document, self.location)

    def _missing(self, key: int) -> MissingRecordError:
        return MissingRecordError(
            f"shard {self.location}: an index hit (chunk key {key}) has no chunk or document "
            "record; the shard is inconsistent: run `groundkit verify` on it and rebuild",
            subject=self.location,
            verdict="unresolvable",
        )

    def close(self) -> None:
        self._reader.close()
