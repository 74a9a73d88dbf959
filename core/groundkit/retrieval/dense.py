"""The dense leg of a read view: its embedder, checked against the manifest at open, and its
vectors, loaded on first use.

Opening costs O(1) here: the identity comparison reads only the manifest. The vectors are read
(and checked against the read view's chunks) the first time a dense or hybrid search runs, into
the exact store or the one named by ``vector_store`` (default: the one recorded beside the
collection, adr/0012).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from collections.abc import Set as AbstractSet
from pathlib import Path

from groundkit.embedding.embedder import Embedder
from groundkit.embedding.embedder_registry import embedder_maker
from groundkit.errors import ConfigurationError, GroundkitError, IndexIdentityError
from groundkit.identities import bind_embedder
from groundkit.manifest import EmbeddingIdentity
from groundkit.retrieval.abstention import DEFAULT_MIN_LEXICAL_SHARE
from groundkit.retrieval.floor import (
    FLOOR_FILE,
    FloorRecord,
    check_floor,
    read_floor,
    shipped_floor,
)
from groundkit.retrieval.request import SearchMode
from groundkit.retrieval.sidecar import Sidecar
from groundkit.store.protocols import CollectionReader
from groundkit.vectors.store_registry import load_vector_store, recorded_vector_store
from groundkit.vectors.vector_store import TieKeys, VectorStore

__all__ = ["DEFAULT_MODE_NOTE", "DenseLeg"]

DEFAULT_MODE_NOTE = (
    "bm25: this collection's default is hybrid, but its embedder is not available "
    "here; pass it (embedder=, --embedder) to search hybrid"
)
"""The trace's ``mode_note`` of a search that named no mode, on a collection bound to a
semantic embedder that is not available (one collection's or a sharded one's: adr/0025)."""


class DenseLeg:
    """Embeds queries and searches the read view's vectors (exact, deterministic)."""

    def __init__(
        self,
        reader: CollectionReader,
        embedder: Embedder | None,
        *,
        location: str,
        vector_store: str | None = None,
    ) -> None:
        self._reader = reader
        self._location = location
        self.manifest: EmbeddingIdentity | None = reader.embedding_identity
        self._problem = ""
        self._embedder = bind_embedder(location, self.manifest, embedder)
        self._maker: Callable[[], Embedder] | None = None
        self._making = threading.Lock()
        if self._embedder is None and self.manifest is not None:
            try:  # claimed now, made on first use: a bm25 search loads no model
                self._maker = embedder_maker(self.manifest)
            except (IndexIdentityError, ConfigurationError) as exc:
                self._problem = f" ({exc.message})"
        self.vector_store = vector_store
        self._store: VectorStore | None = None
        self._record: Sidecar[FloorRecord | None] | None = None

    @property
    def embedder(self) -> Embedder | None:
        """The embedder, made (once, under a lock) from the registered one that claims the
        collection's embedding the first time it is asked for; None where none is given or
        claims it, or where making it failed (``require`` says why)."""
        if self._embedder is None and self._maker is not None:
            with self._making:
                maker, self._maker = self._maker, None
                if maker is not None:
                    try:
                        self._embedder = maker()
                    except Exception as exc:  # any failure: remembered, and never a traceback
                        reason = exc.message if isinstance(exc, GroundkitError) else repr(exc)
                        self._problem = f" ({reason})"
        return self._embedder

    @property
    def default_mode(self) -> SearchMode:
        """``hybrid`` when bound to a semantic embedder this leg has (making it, if a registered
        one claims it: a search of the default mode embeds anyway), else ``bm25``
        (adr/0025)."""
        semantic = self.manifest is not None and self.manifest.semantic
        return "hybrid" if semantic and self.embedder is not None else "bm25"

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor for this search and where it came from: ``search`` (given),
        the collection's record (``dense-floor.json``, or a static site's head: adr/0070)
        by its source (``self-calibrated``, ``collection``), or ``embedder`` (its default,
        where the collection has none; adr/0024)."""
        if given is not None:
            return check_floor(given), "search"
        embedder = self.require(mode)
        record = self._recorded()
        if record is None:
            return embedder.similarity_floor, "embedder"
        return record.floor, record.source

    def _recorded(self) -> FloorRecord | None:
        """The collection's floor record, read again when an ingest or ``calibrate`` records
        it anew (adr/0072); a static site's shipped one, read once."""
        if self._record is None:
            manifest = self.manifest
            assert manifest is not None  # require() checked it
            shipped = self._reader.shipped_dense_floor()
            if shipped is not None:  # a static site's head (adr/0070)
                fixed = shipped_floor(shipped, self._location, manifest)
                self._record = Sidecar(None, lambda: fixed)
            else:
                beside = Path(self._location).parent / FLOOR_FILE
                self._record = Sidecar(beside, lambda: read_floor(self._location, manifest))
        return self._record.get()

    def lexical_share(self, given: float | None) -> tuple[float, str]:
        """Hybrid's lexical evidence bar and where it came from: ``search`` (given),
        the floor's record by its source (beside it, or in a site's head) or ``default``
        (adr/0049). Reads the record as ``floor`` does."""
        if given is not None:
            return given, "search"
        self.require("hybrid")
        record = self._recorded()
        if record is not None and record.lexical_share is not None:
            return record.lexical_share, record.source
        return DEFAULT_MIN_LEXICAL_SHARE, "default"

    def require(self, mode: str) -> Embedder:
        """The embedder, or ``ConfigurationError`` naming the fix when ``mode`` cannot run."""
        if self.manifest is None:
            raise ConfigurationError(
                f"collection {self._location} has no dense side (it was ingested without an "
                f"embedder), so mode {mode!r} cannot run; re-ingest into a new collection with "
                "`groundkit ingest PATH --embedder minilm --collection NAME` (needs "
                'pip install ".[onnx]"; `--embedder hash` only for tests and demos: it carries '
                "no meaning; embedder= in Python), or search with mode 'bm25'",
                subject=self._location,
            )
        if self.embedder is None:
            raise ConfigurationError(
                f"collection {self._location} is bound to embedding {self.manifest.to_json()} and "
                f"no registered embedder reproduces it{self._problem}, so mode {mode!r} cannot "
                "run; pass it (`--embedder DIR`, Searcher.open(..., embedder=...)), or search "
                "with mode 'bm25'",
                subject=self._location,
            )
        return self.embedder

    def _loaded_store(self) -> VectorStore:
        """The vector store, loaded on first use (the exact one, or the one named/recorded)."""
        if self._store is None:
            assert self.manifest is not None  # require() checked it
            name = self.vector_store or recorded_vector_store(self._location) or "exact"
            self._store = load_vector_store(
                name, self._reader, self.manifest, location=self._location
            )
            self.vector_store = name
        return self._store

    def warm(self) -> bool:
        """Do now what a first dense or hybrid search would: load the vector store and run the
        embedder once; False (nothing done) where this leg cannot search."""
        if self.manifest is None or self.embedder is None:
            return False
        self._loaded_store()
        self.embedder.embed_query("warm-up")
        return True

    def search(
        self,
        query: str,
        mode: str,
        k: int,
        *,
        min_score: float | None,
        tie_keys: TieKeys,
        allowed: AbstractSet[int] | None = None,
    ) -> list[tuple[int, float]]:
        """The ``k`` chunk keys most similar to ``query``, best first (only ``allowed`` ones,
        when given: the store is asked for more until ``k`` pass or it has no more)."""
        embedder = self.require(mode)
        store = self._loaded_store()
        vector: Sequence[float] = embedder.embed_query(query)
        if allowed is None:
            return store.search(vector, k, min_score=min_score, tie_keys=tie_keys)
        total = store.count()
        asked = min(k, total)
        while True:
            found = store.search(vector, asked, min_score=min_score, tie_keys=tie_keys)
            kept = [(key, score) for key, score in found if key in allowed]
            if len(kept) >= k or asked >= total or len(found) < asked:
                return kept[:k]
            asked = min(total, asked * 4)
