"""``Retriever``: a snapshot of one collection that answers queries with cited passages.

Modes: ``bm25`` (lexical), ``dense`` (embedding similarity) and ``hybrid`` (both, fused by
reciprocal rank, abstaining when neither leg has evidence: adr/0008). This is the one place
where hits are joined to chunk and document records; a hit whose record is missing fails closed
with ``RetrievalError`` instead of being dropped or guessed.
"""

from __future__ import annotations

import math
import time
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import (
    DEFAULT_COLLECTION,
    DEFAULT_INDEX_DIR,
    DEFAULT_LEG_DEPTH,
    DEFAULT_RERANK_DEPTH,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    BM25Params,
)
from groundkit.contracts import Document, SearchResponse, SearchResult
from groundkit.embedding.base import Embedder
from groundkit.errors import (
    ConfigurationError,
    IndexIdentityError,
    RerankerNotConfiguredError,
    RetrievalError,
)
from groundkit.index.bm25 import BM25Index
from groundkit.index.ties import CachedTieKeys
from groundkit.retrieval.citations import Verification, citation_for, verify_citation
from groundkit.retrieval.dense import DenseLeg
from groundkit.retrieval.fusion import reciprocal_rank_fusion
from groundkit.retrieval.rerank import Reranker
from groundkit.store.base import CollectionReader

__all__ = ["MODES", "Retriever"]

MODES: tuple[str, ...] = ("bm25", "dense", "hybrid")
_STAGES = {"bm25": "bm25", "dense": "dense", "hybrid": "fusion"}
MAX_LEG_DEPTH = 100 * MAX_TOP_K


class Retriever:
    """Searches one snapshot; documents written after it was opened stay invisible."""

    def __init__(
        self,
        reader: CollectionReader,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        vector_store: str | None = None,
    ) -> None:
        location = reader.location
        stored = reader.analyzer_identity
        if stored is None:
            self.analyzer = analyzer or Analyzer()
        elif analyzer is None:
            self.analyzer = Analyzer.from_identity(stored, subject=location)
        elif analyzer.identity != stored:
            reader.close()
            raise IndexIdentityError(
                f"collection {location} was built with analyzer {stored}, but search asked for "
                f"{analyzer.identity}; omit the analyzer to use the collection's own",
                subject=location,
                expected=str(stored),
                found=analyzer.identity_json,
            )
        else:
            self.analyzer = analyzer
        try:  # identities are compared before any O(corpus) work
            self._dense = DenseLeg(reader, embedder, location=location, vector_store=vector_store)
        except BaseException:
            reader.close()
            raise
        self.reranker = reranker
        self._reader = reader
        self._location = location
        self._lexical = BM25Index(reader, bm25)
        self._tie_keys = CachedTieKeys.of(reader)

    @classmethod
    def open(
        cls,
        index_dir: str | Path = DEFAULT_INDEX_DIR,
        collection: str = DEFAULT_COLLECTION,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
        embedder: Embedder | None = None,
        reranker: Reranker | None = None,
        vector_store: str | None = None,
    ) -> Retriever:
        """Open a snapshot of a stored collection (``CollectionNotFoundError`` if none).

        Without ``embedder``, a collection with an embedding manifest gets the registered
        embedder that reproduces it (``hash``); a different ``embedder`` raises
        ``IndexIdentityError`` here, before anything else is read. ``vector_store`` names the
        store dense searches use (``exact``, ``usearch``); default: the one recorded beside the
        collection, else ``exact``.
        """
        from groundkit.collection import open_reader

        return cls(
            open_reader(index_dir, collection),
            analyzer=analyzer,
            bm25=bm25,
            embedder=embedder,
            reranker=reranker,
            vector_store=vector_store,
        )

    @property
    def embedder(self) -> Embedder | None:
        """The embedder dense and hybrid searches use (None for a lexical collection)."""
        return self._dense.embedder

    @property
    def generation(self) -> int:
        return self._reader.generation

    @property
    def reader(self) -> CollectionReader:
        return self._reader

    def search(
        self,
        query: str,
        top_k: int | None = None,
        mode: str = "bm25",
        *,
        score_threshold: float | None = None,
        rrf_k: int = DEFAULT_RRF_K,
        depth: int | None = None,
        weights: tuple[float, float] = (1.0, 1.0),
        min_similarity: float | None = None,
        rerank: bool = False,
        rerank_depth: int | None = None,
    ) -> SearchResponse:
        """The ``top_k`` best passages for ``query``, best first, each with its citation.

        ``mode``: ``bm25``, ``dense`` or ``hybrid``. ``score_threshold`` drops results scoring
        below it (BM25 score, similarity or fused score), so a query the collection cannot
        answer can return nothing. Hybrid only: ``rrf_k``, ``depth`` (candidates per leg,
        default max(100, results wanted)), ``weights`` (lexical, dense) and ``min_similarity``
        (the dense evidence floor, default the embedder's ``similarity_floor``; adr/0008).
        ``rerank`` re-scores the best ``rerank_depth`` (default 50) with the retriever's
        reranker, and raises ``RerankerNotConfiguredError`` when it has none.
        """
        started = time.perf_counter()
        k = self._validate(query, top_k, mode)
        want = self._check_rerank(rerank, rerank_depth, k)
        leg_depth = want
        if mode == "hybrid":
            leg_depth = _check_hybrid(rrf_k, depth, weights, want)
        elif min_similarity is not None:
            raise ConfigurationError(
                f"min_similarity applies to mode 'hybrid' only; in mode {mode!r} use "
                "score_threshold"
            )
        if mode != "bm25":
            self._dense.require(mode)
        timings: dict[str, float] = {}
        metadata: dict[str, Any] = {
            "stage": _STAGES[mode],
            "mode": mode,
            "generation": self._reader.generation,
        }
        mark = started
        try:
            lexical: list[tuple[int, float]] = []
            if mode != "dense":
                terms = self.analyzer.terms(query)
                threshold = score_threshold if mode == "bm25" else None
                hits = self._lexical.top_k(
                    terms, leg_depth, self._tie_keys, score_threshold=threshold
                )
                lexical = hits.pairs()
                metadata["query_terms"] = len(terms)
                metadata["accelerator"] = self._lexical.accelerator
                metadata["bm25"] = {"k1": self._lexical.params.k1, "b": self._lexical.params.b}
                mark = _lap(timings, "bm25", mark)
            if mode == "bm25":
                ranked = lexical
            elif mode == "dense":
                ranked = self._dense.search(
                    query, mode, want, min_score=score_threshold, tie_keys=self._tie_keys
                )
                mark = _lap(timings, "dense", mark)
            else:
                fused = self._hybrid(
                    query, lexical, leg_depth, rrf_k, weights, min_similarity, metadata
                )
                floor = -math.inf if score_threshold is None else score_threshold
                ranked = [(key, score) for key, score in fused if score >= floor][:want]
                mark = _lap(timings, "dense_and_fusion", mark)
        except KeyError as exc:
            raise self._missing_record(int(exc.args[0])) from None
        if mode != "bm25":
            metadata["vector_store"] = self._dense.vector_store
        results = self._join(ranked)
        mark = _lap(timings, "join", mark)
        if rerank:
            results = self._rerank(query, results, k)
            metadata["stage"] = "rerank"
            metadata["rerank_depth"] = want
            mark = _lap(timings, "rerank", mark)
        if score_threshold is not None:
            metadata["score_threshold"] = score_threshold
        timings["total"] = round((mark - started) * 1000, 3)
        metadata["timings_ms"] = timings
        return SearchResponse(query=query, results=tuple(results), metadata=metadata)

    def _hybrid(
        self,
        query: str,
        lexical: list[tuple[int, float]],
        depth: int,
        rrf_k: int,
        weights: tuple[float, float],
        min_similarity: float | None,
        metadata: dict[str, Any],
    ) -> list[tuple[int, float]]:
        """Fuse the legs' evidence; nothing when neither leg has any (adr/0008)."""
        embedder = self._dense.require("hybrid")
        floor = embedder.similarity_floor if min_similarity is None else min_similarity
        dense = self._dense.search(query, "hybrid", depth, min_score=floor, tie_keys=self._tie_keys)
        abstained = not lexical and not dense
        metadata.update(
            legs={"bm25": len(lexical), "dense": len(dense)},
            dense_best=dense[0][1] if dense else None,
            fusion={"rrf_k": rrf_k, "depth": depth, "weights": list(weights)},
            min_similarity=floor,
            abstained=abstained,
        )
        if abstained:
            return []
        return reciprocal_rank_fusion(
            [lexical, dense], tie_keys=self._tie_keys, rrf_k=rrf_k, weights=weights
        )

    def _check_rerank(self, rerank: bool, rerank_depth: int | None, k: int) -> int:
        """How many results to retrieve: ``k``, or the rerank depth."""
        if not rerank:
            if rerank_depth is not None:
                raise ConfigurationError("rerank_depth is set but rerank is off; pass rerank=True")
            return k
        if self.reranker is None:
            raise RerankerNotConfiguredError(
                "rerank was asked for but this retriever has no reranker; pass one with "
                "Retriever.open(..., reranker=...) (groundkit's extras provide cross-encoders), "
                "or search without rerank",
                subject="reranker",
            )
        return _depth(
            "rerank_depth", rerank_depth, DEFAULT_RERANK_DEPTH, f"top_k ({k})", k, MAX_TOP_K
        )

    def _rerank(self, query: str, results: list[SearchResult], k: int) -> list[SearchResult]:
        assert self.reranker is not None
        reranked = list(self.reranker.rerank(query, results, k))
        known = {r.chunk_id for r in results}
        strangers = [r.chunk_id for r in reranked if r.chunk_id not in known]
        if strangers or len(reranked) > k:
            raise RetrievalError(
                f"the reranker returned {len(reranked)} results for top_k {k}, "
                f"{len(strangers)} of them not among its candidates; its answer is refused",
                subject="reranker",
            )
        return reranked

    def _validate(self, query: str, top_k: int | None, mode: str) -> int:
        if not isinstance(query, str) or not query.strip():
            raise RetrievalError("the query is empty; pass some words to search for")
        if len(query) > MAX_QUERY_CHARS:
            raise RetrievalError(
                f"the query is {len(query)} characters long, over the {MAX_QUERY_CHARS} limit; "
                "shorten it (it is never truncated)"
            )
        k = DEFAULT_TOP_K if top_k is None else top_k
        if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_TOP_K:
            raise RetrievalError(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}")
        if mode not in MODES:
            raise RetrievalError(
                f"unknown search mode {mode!r}; this version supports: {', '.join(MODES)}",
                subject=str(mode),
            )
        return k

    def _missing_record(self, key: int) -> RetrievalError:
        return RetrievalError(
            f"collection {self._location}: an index hit (chunk key {key}) has no chunk or "
            "document record; the collection is inconsistent: run `groundkit verify` and "
            "re-ingest",
            subject=self._location,
            verdict="unresolvable",
        )

    def _join(self, ranked: list[tuple[int, float]]) -> list[SearchResult]:
        keys = [key for key, _ in ranked]
        chunks = self._reader.chunks(keys)
        documents = self._reader.documents(sorted({c.document_id for c in chunks.values()}))
        results: list[SearchResult] = []
        for rank, (key, score) in enumerate(ranked, start=1):
            chunk = chunks.get(key)
            document = None if chunk is None else documents.get(chunk.document_id)
            if chunk is None or document is None:
                raise self._missing_record(key)
            citation = citation_for(chunk, document)
            metadata = {**chunk.metadata, "rank": rank, "chunk_index": chunk.chunk_index}
            results.append(
                SearchResult(
                    content=chunk.text,
                    score=score,
                    document_id=document.document_id,
                    chunk_id=chunk.chunk_id,
                    citation=citation,
                    metadata=metadata,
                )
            )
        return results

    def document_of(self, result: SearchResult) -> Document:
        found = self._reader.documents([result.document_id]).get(result.document_id)
        if found is None:
            raise RetrievalError(
                f"document {result.document_id} of {result.source} is not in this snapshot",
                subject=result.source,
                verdict="unresolvable",
            )
        return found

    def verify(self, result: SearchResult) -> Verification:
        """Re-read the result's source under its document's base directory and compare."""
        return verify_citation(result.citation, self.document_of(result).root)

    def close(self) -> None:
        self._reader.close()

    def __enter__(self) -> Retriever:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def _not_count(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


def _depth(name: str, given: int | None, default: int, floor: str, low: int, high: int) -> int:
    """``given``, or max(``default``, ``low``) when None; refused outside ``low``..``high``."""
    chosen = max(default, low) if given is None else given
    if _not_count(chosen) or not low <= chosen <= high:
        raise ConfigurationError(f"{name} must be an integer from {floor} to {high}, got {given!r}")
    return chosen


def _check_hybrid(rrf_k: int, depth: int | None, weights: tuple[float, float], want: int) -> int:
    """Validate the fusion settings; the candidate depth per leg."""
    if _not_count(rrf_k) or rrf_k < 1:
        raise ConfigurationError(f"rrf_k must be an integer >= 1, got {rrf_k!r}")
    valid = len(weights) == 2 and all(
        isinstance(w, int | float) and math.isfinite(w) and w >= 0 for w in weights
    )
    if not valid or not any(weights):
        raise ConfigurationError(
            f"weights must be two finite numbers >= 0, not both 0 (lexical, dense), got {weights!r}"
        )
    return _depth(
        "depth", depth, DEFAULT_LEG_DEPTH, f"the results wanted ({want})", want, MAX_LEG_DEPTH
    )


def _lap(timings: dict[str, float], name: str, since: float) -> float:
    now = time.perf_counter()
    timings[name] = round((now - since) * 1000, 3)
    return now
