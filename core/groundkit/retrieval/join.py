"""Turning ranked chunk keys into results: each hit joined to its chunk and document records
(failing closed on a missing one), and the query's words located in each result's text.

Shared by the retriever and the sharded search, so a result looks the same either way. A
snapshot never changes, so ``JoinedRecords`` keeps what a hit joins to (its chunk, document and
citation) for the next query that returns it, bounded by the text it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from groundkit.analysis.analyzer import Analyzer
from groundkit.contracts import Chunk, Citation, Document, SearchResult
from groundkit.index.cache import BoundedCache
from groundkit.retrieval.citations import citation_for
from groundkit.retrieval.highlight import highlight_spans
from groundkit.store.base import CollectionReader

__all__ = ["JOINED_RECORDS_CHARS", "JoinedRecords", "join_results", "with_highlights"]

JOINED_RECORDS_CHARS = 1 << 25
"""What ``JoinedRecords`` keeps, in code points of chunk text (plus a fixed cost a record):
32 Mi, tens of MB; full, it starts over (``BoundedCache``)."""
_RECORD_COST = 256

Joined = tuple[Chunk, Document, Citation, dict[str, object]]
"""A hit's chunk, document, citation, and the chunk's metadata as a plain dict (copied into
each result's metadata: faster than from the chunk's read-only mapping)."""


class JoinedRecords:
    """A snapshot's hits joined to their records, read in batches and kept."""

    def __init__(self, reader: CollectionReader, limit: int = JOINED_RECORDS_CHARS) -> None:
        self._reader = reader
        self._kept: BoundedCache[int, Joined] = BoundedCache(limit)

    def records(self, keys: Sequence[int]) -> dict[int, Joined]:
        """The records of ``keys``; a key without a chunk or document record is left out."""
        get = self._kept.get
        found: dict[int, Joined] = {}
        unread: list[int] = []
        for key in keys:
            joined = get(key)
            if joined is None:
                unread.append(key)
            else:
                found[key] = joined
        if unread:
            chunks = self._reader.chunks(unread)
            documents = self._reader.documents(sorted({c.document_id for c in chunks.values()}))
            put = self._kept.put
            for key, chunk in chunks.items():
                document = documents.get(chunk.document_id)
                if document is not None:
                    citation = citation_for(chunk, document)
                    joined = (chunk, document, citation, dict(chunk.metadata))
                    found[key] = put(key, joined, len(chunk.text) + _RECORD_COST)
        return found


def join_results(
    records: JoinedRecords,
    ranked: Sequence[tuple[int, float, int]],
    missing: Callable[[int], Exception],
) -> list[SearchResult]:
    """Results with citations for (chunk key, score, rank) triples, in the given order;
    ``missing(key)`` is raised for a hit without a chunk or document record."""
    joined = records.records([key for key, _, _ in ranked])
    results: list[SearchResult] = []
    for key, score, rank in ranked:
        found = joined.get(key)
        if found is None:
            raise missing(key)
        chunk, document, citation, chunk_metadata = found
        metadata = {
            **chunk_metadata,
            "rank": rank,
            "chunk_index": chunk.chunk_index,
            "root": document.root,
        }
        results.append(
            SearchResult.of_record(citation, score, document.document_id, chunk.chunk_id, metadata)
        )
    return results


def with_highlights(
    analyzer: Analyzer, terms: Sequence[str], results: Sequence[SearchResult]
) -> list[SearchResult]:
    """``results`` with their ``highlights``: where the query's ``terms`` occur in each text."""
    wanted = frozenset(terms)
    return [replace(r, highlights=highlight_spans(analyzer, wanted, r.content)) for r in results]
