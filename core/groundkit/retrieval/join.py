"""Turning ranked chunk keys into results: each hit joined to its chunk and document records
(failing closed on a missing one), and the query's words located in each result's text.

Shared by the retriever and the sharded search, so a result looks the same either way. A
read view never changes, so ``JoinedRecords`` keeps what a hit joins to (its chunk, document and
citation) for the next query that returns it, bounded by the text it holds.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Sequence
from dataclasses import replace

from groundkit.analysis.analyzer import Analyzer
from groundkit.contracts import Citation, SearchResult
from groundkit.index.cache import BoundedCache
from groundkit.retrieval.citations import citation_for
from groundkit.retrieval.highlight import highlight_spans
from groundkit.store.protocols import CollectionReader

__all__ = ["JOINED_RECORDS_CHARS", "JoinedRecords", "join_results", "with_highlights"]

JOINED_RECORDS_CHARS = 1 << 25
"""What ``JoinedRecords`` keeps, in code points of chunk text (plus a fixed cost a record):
32 Mi, tens of MB; full, it starts over (``BoundedCache``)."""
_RECORD_COST = 256

Joined = tuple[Citation, str, str, dict[str, object]]
"""What a hit's result is made of: its citation, document id, chunk id, and its metadata as a
plain dict (the chunk's, its index and the document's root; the rank is set in each result's
copy: a copy of a small dict is cheaper than building it)."""


class JoinedRecords:
    """A read view's hits joined to their records, read in batches and kept."""

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
                    metadata = {
                        **chunk.metadata,
                        "rank": 0,
                        "chunk_index": chunk.chunk_index,
                        "root": document.root,
                    }
                    citation = citation_for(chunk, document)
                    joined = (citation, document.document_id, chunk.chunk_id, metadata)
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
    of_record = SearchResult.of_record
    results: list[SearchResult] = []
    for key, score, rank in ranked:
        found = joined.get(key)
        if found is None:
            raise missing(key)
        citation, document_id, chunk_id, kept = found
        metadata = kept.copy()  # new for each result: it is frozen, not copied
        metadata["rank"] = rank
        results.append(of_record(citation, score, document_id, chunk_id, metadata))
    return results


def with_highlights(
    analyzer: Analyzer, terms: Collection[str], results: Sequence[SearchResult]
) -> list[SearchResult]:
    """``results`` with their ``highlights``: where the query's ``terms`` occur in each text."""
    wanted = frozenset(terms)
    return [replace(r, highlights=highlight_spans(analyzer, wanted, r.content)) for r in results]
