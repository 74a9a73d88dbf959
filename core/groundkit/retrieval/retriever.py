"""``Retriever``: a snapshot of one collection that answers queries with cited passages.

This is the one place where index hits are joined to chunk and document records; a hit whose
record is missing fails closed with ``RetrievalError`` instead of being dropped or guessed.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.config import (
    DEFAULT_COLLECTION,
    DEFAULT_INDEX_DIR,
    DEFAULT_TOP_K,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
    BM25Params,
)
from groundkit.contracts import Document, SearchResponse, SearchResult
from groundkit.errors import IndexIdentityError, RetrievalError
from groundkit.index.bm25 import BM25Index
from groundkit.retrieval.citations import Verification, citation_for, verify_citation
from groundkit.store.base import CollectionReader, TieKey

__all__ = ["MODES", "Retriever"]

MODES: tuple[str, ...] = ("bm25",)


class Retriever:
    """Searches one snapshot; documents written after it was opened stay invisible."""

    def __init__(
        self,
        reader: CollectionReader,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
    ) -> None:
        location = getattr(reader, "location", "collection")
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
        self._reader = reader
        self._location = location
        self._lexical = BM25Index(reader, bm25)

    @classmethod
    def open(
        cls,
        index_dir: str | Path = DEFAULT_INDEX_DIR,
        collection: str = DEFAULT_COLLECTION,
        *,
        analyzer: Analyzer | None = None,
        bm25: BM25Params | None = None,
    ) -> Retriever:
        """Open a snapshot of a stored collection (``CollectionNotFoundError`` if none)."""
        from groundkit.collection import open_reader

        return cls(open_reader(index_dir, collection), analyzer=analyzer, bm25=bm25)

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
    ) -> SearchResponse:
        """The ``top_k`` best passages for ``query``, best first, each with its citation.

        ``score_threshold`` drops results scoring below it, so a query the collection cannot
        answer can return nothing.
        """
        started = time.perf_counter()
        k = self._validate(query, top_k, mode)
        terms = self.analyzer.terms(query)
        analyzed = time.perf_counter()
        try:
            hits = self._lexical.top_k(terms, k, self._tie_keys, score_threshold=score_threshold)
        except KeyError as exc:
            raise self._missing_record(int(exc.args[0])) from None
        ranked = hits.ranked
        scored = time.perf_counter()
        results = self._join(ranked)
        finished = time.perf_counter()
        metadata: dict[str, Any] = {
            "stage": "bm25",
            "mode": mode,
            "generation": self._reader.generation,
            "query_terms": len(terms),
            "candidates": hits.candidates,
            "accelerator": self._lexical.accelerator,
            "bm25": {"k1": self._lexical.params.k1, "b": self._lexical.params.b},
            "timings_ms": {
                "analyze": round((analyzed - started) * 1000, 3),
                "score": round((scored - analyzed) * 1000, 3),
                "join": round((finished - scored) * 1000, 3),
                "total": round((finished - started) * 1000, 3),
            },
        }
        if score_threshold is not None:
            metadata["score_threshold"] = score_threshold
        return SearchResponse(query=query, results=tuple(results), metadata=metadata)

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

    def _tie_keys(self, keys: Sequence[int]) -> dict[int, TieKey]:
        return self._reader.tie_keys(keys)

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
