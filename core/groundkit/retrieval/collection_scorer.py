"""``CollectionScorer``: one collection's read view scored, the unit a ``Searcher`` searches.

It scores a collection of its own with its own statistics (``manifest`` None), or one shard of
a sharded collection (itself an ordinary collection) with the statistics of the whole, which
the ``Searcher`` reduced from every shard's (tantivy's ``SegmentReader`` under a ``Searcher``).
Its answers are plain data, small enough to cross a process boundary: its statistics for some
terms (the map), its best lexical or dense hits, and the records (with citations) of the
chunks the merge kept (``retrieval/steps.py`` carries each call to it, adr/0063).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from groundkit.analysis.analyzer import Analyzer
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
from groundkit.index.lexicon import Lexicon
from groundkit.index.postings import blend_members
from groundkit.index.ties import CachedTieKeys
from groundkit.retrieval.citations import Verification, verify_document_citation
from groundkit.retrieval.dense import DenseLeg
from groundkit.retrieval.expansion import ExpandedQuery, expand_query
from groundkit.retrieval.filtering import FilterCache
from groundkit.retrieval.join import JoinedRecords, join_results
from groundkit.retrieval.merge import NO_TIE, ShardHit
from groundkit.retrieval.request import SearchFilter, SearchMode
from groundkit.retrieval.shard_stats import ShardStatistics, collection_stats, map_statistics
from groundkit.retrieval.sidecar import Sidecar
from groundkit.store.protocols import CollectionReader

if TYPE_CHECKING:  # the sharded side is imported where a shard is opened: a search needs none
    from groundkit.shards.shard_manifest import ShardManifest

from groundkit.retrieval.lexical_bar import (
    LEXICAL_BAR_FILE,
    LexicalBar,
    read_lexical_bar,
    shipped_lexical_bar,
)

__all__ = ["CollectionScorer"]


class CollectionScorer:
    """Scores one collection's read view with its own statistics (``manifest`` None), or one
    shard's with the statistics of the whole sharded collection."""

    def __init__(
        self,
        reader: CollectionReader,
        shard: int = 0,
        manifest: ShardManifest | None = None,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        vector_store: str | None = None,
        accelerator: Accelerator = "auto",
    ) -> None:
        location = reader.location
        try:
            if manifest is None:  # a collection of its own: its identities are checked here
                self.analyzer = bind_analyzer(location, reader.analyzer_identity, analyzer)
            else:
                self._check_sealed(reader, shard, manifest)
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
        stats = None
        if manifest is not None:
            stats = collection_stats(manifest.chunk_count, manifest.total_length, self._global_df)
        self._own = manifest is None
        self._lexical = BM25Index(reader, bm25, accelerator=accelerator, stats=stats)
        self._lexicon = Lexicon(reader, self.analyzer.readable)
        self._tie_keys = CachedTieKeys.of(reader)
        self._filters = FilterCache(reader)
        self._bar: Sidecar[LexicalBar | None] | None = None

    @staticmethod
    def _check_sealed(reader: CollectionReader, shard: int, manifest: ShardManifest) -> None:
        """Refuse a shard its manifest does not describe (changed since, or not sealed)."""
        from groundkit.shards.seal import check_shard

        record = manifest.shards[shard]
        location = reader.location
        if reader.generation != record.generation:
            raise ShardUnavailableError(
                f"shard {location} is at generation {reader.generation} but the manifest of "
                f"{manifest.collection!r} recorded {record.generation}: it changed outside a "
                "sharded ingest (or one did not finish); re-run `groundkit shard build` with "
                "the same source",
                subject=location,
            )
        check_shard(reader, shard, manifest)

    @classmethod
    def open_shard(
        cls,
        index_dir: str | Path,
        manifest: ShardManifest,
        shard: int,
        **options: object,
    ) -> CollectionScorer:
        """Open shard ``shard`` of ``manifest`` (``ShardUnavailableError`` when it is missing)."""
        from groundkit.shards.shard_manifest import shard_name, shards_dir

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

    def warm(self) -> bool:
        """Load what a first search would (``Searcher.warm``): numpy scoring where installed,
        the vector store and the embedder, the lexicon's typo tables; False where there is no
        usable dense side."""
        self._lexical.accelerate()
        self._lexicon.warm()
        return self._dense.warm()

    def expand(self, query: str, *, prefix: bool, fuzzy: bool) -> ExpandedQuery:
        """``query``'s terms with its words' prefix and typo expansions, from this read view's
        lexicon (adr/0046)."""
        return expand_query(
            query, self.analyzer, self._lexicon, self._lexical, prefix=prefix, fuzzy=fuzzy
        )

    @property
    def default_mode(self) -> SearchMode:
        """``DenseLeg.default_mode``: every shard of a sharded collection shares the embedding."""
        return self._dense.default_mode

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor of a dense or hybrid search and its source (adr/0024)."""
        return self._dense.floor(mode, given)

    def lexical_share(self, given: float | None) -> tuple[float, str]:
        """Hybrid's lexical evidence bar and its source (adr/0049)."""
        return self._dense.lexical_share(given)

    def lexical_bar(self) -> tuple[float | None, str]:
        """bm25's lexical evidence bar and its source (adr/0060): the recorded one where it
        separates, else None (bm25 does not abstain) with why; read again when an ingest or
        ``calibrate`` records it anew (adr/0072)."""
        if self._bar is None:
            shipped = self._reader.shipped_lexical_bar()
            if shipped is not None:  # a static site's head (adr/0069)
                fixed = shipped_lexical_bar(shipped, self.location)
                self._bar = Sidecar(None, lambda: fixed)
            else:
                beside = Path(self.location).parent / LEXICAL_BAR_FILE
                self._bar = Sidecar(beside, lambda: read_lexical_bar(self.location))
        bar = self._bar.get()
        if bar is None:
            return None, "none"
        return (bar.share if bar.separates else None), bar.source

    def term_idf(self, terms: Sequence[str]) -> list[tuple[int, float]]:
        """Each term's document frequency and BM25 idf as this read view scores with it (a
        static site's shipped bits; a blended term's at its weight), for bm25's ideal score
        (adr/0069)."""
        lexical = self._lexical
        return [(lexical.df(term), lexical.term_idf(term)) for term in terms]

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
        return map_statistics(reader.chunk_count, reader.total_length, self._own_df, terms)

    def _own_df(self, term: str) -> int:
        """This read view's document frequency of ``term``; a blended term's (prefix and typo
        expansions, one collection only) is its most frequent member's, as BM25 scores it."""
        blended = blend_members(term)
        if blended is None:
            return self._lexical.local_df(term)
        return max(self._lexical.local_df(member) for member in blended[1])

    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        *,
        score_threshold: float | None = None,
        where: SearchFilter | None = None,
        ties: bool = True,
    ) -> tuple[list[ShardHit], str]:
        """This shard's ``k`` best chunks for analyzed ``terms``, scored with the collection's
        document frequencies ``df`` (the reduce of every shard's ``statistics``), and the
        scoring path that found them; ``where`` admits chunks here, before the merge. A
        collection of its own scores with its own statistics (the same ``df``)."""
        for term, count in () if self._own else df.items():
            if self._df.setdefault(term, count) != count:
                raise ShardUnavailableError(
                    f"shard {self.location}: document frequency of a term changed between "
                    "queries; the shards' read views are out of step",
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
            return self._hits(hits.pairs(), ties), hits.path
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
        ties: bool = True,
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
            return self._hits(found, ties), self._dense.vector_store
        except KeyError as exc:
            raise self._missing(int(exc.args[0])) from None

    def _hits(self, ranked: Sequence[tuple[int, float]], ties: bool) -> list[ShardHit]:
        """``ranked`` as hits of this shard, with their tie keys or, where no merge or fusion
        will order them (one shard, no fusion), ``NO_TIE``."""
        shard, new = self.shard, tuple.__new__
        if not ties:
            return [new(ShardHit, (score, NO_TIE, shard, key)) for key, score in ranked]
        found = self._tie_keys([key for key, _ in ranked])
        return [new(ShardHit, (score, found[key], shard, key)) for key, score in ranked]

    def results(self, ranked: Sequence[tuple[int, float, int]]) -> list[SearchResult]:
        """Results with citations for (chunk key, score, global rank) triples of this shard."""
        return join_results(self._records, ranked, self._missing)

    def document(self, document_id: str, source: str) -> Document:
        """Document ``document_id`` of ``source`` (``RetrievalError`` if this read view lacks
        it: written after it was opened, or removed)."""
        found = self._reader.documents([document_id]).get(document_id)
        if found is None:
            raise RetrievalError(
                f"document {document_id} of {source} is not in {self.location} as opened; "
                "search again",
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
