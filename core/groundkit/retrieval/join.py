"""Turning ranked chunk keys into results: each hit joined to its chunk and document records
(failing closed on a missing one), and the query's words located in each result's text.

Shared by the retriever and the sharded search, so a result looks the same either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

from groundkit.analysis.analyzer import Analyzer
from groundkit.contracts import SearchResult
from groundkit.retrieval.citations import citation_for
from groundkit.retrieval.highlight import highlight_spans
from groundkit.store.base import CollectionReader

__all__ = ["join_results", "with_highlights"]


def join_results(
    reader: CollectionReader,
    ranked: Sequence[tuple[int, float, int]],
    missing: Callable[[int], Exception],
) -> list[SearchResult]:
    """Results with citations for (chunk key, score, rank) triples, in the given order;
    ``missing(key)`` is raised for a hit without a chunk or document record."""
    chunks = reader.chunks([key for key, _, _ in ranked])
    documents = reader.documents(sorted({c.document_id for c in chunks.values()}))
    results: list[SearchResult] = []
    for key, score, rank in ranked:
        chunk = chunks.get(key)
        document = None if chunk is None else documents.get(chunk.document_id)
        if chunk is None or document is None:
            raise missing(key)
        metadata = {
            **chunk.metadata,
            "rank": rank,
            "chunk_index": chunk.chunk_index,
            "root": document.root,
        }
        results.append(
            SearchResult(
                content=chunk.text,
                score=score,
                document_id=document.document_id,
                chunk_id=chunk.chunk_id,
                citation=citation_for(chunk, document),
                metadata=metadata,
            )
        )
    return results


def with_highlights(
    analyzer: Analyzer, terms: Sequence[str], results: Sequence[SearchResult]
) -> list[SearchResult]:
    """``results`` with their ``highlights``: where the query's ``terms`` occur in each text."""
    wanted = frozenset(terms)
    return [replace(r, highlights=highlight_spans(analyzer, wanted, r.content)) for r in results]
