"""Search over a collection's read view (or a sharded collection's), and re-checking citations
against their sources."""

from __future__ import annotations

from groundkit.retrieval.audit import CollectionVerification, verify_collection, verify_reader
from groundkit.retrieval.citations import (
    Verdict,
    Verification,
    citation_for,
    resolve_citation,
    verify_citation,
)
from groundkit.retrieval.highlight import Snippet, highlight_spans, snippet
from groundkit.retrieval.request import (
    MODES,
    GroupOptions,
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
    SearchRequest,
)
from groundkit.retrieval.searcher import Retriever, Searcher, sharded_layout, sharded_searcher

__all__ = [
    "MODES",
    "CollectionVerification",
    "GroupOptions",
    "HybridOptions",
    "RerankOptions",
    "Retriever",
    "SearchFilter",
    "SearchMode",
    "SearchRequest",
    "Searcher",
    "Snippet",
    "Verdict",
    "Verification",
    "citation_for",
    "highlight_spans",
    "resolve_citation",
    "sharded_layout",
    "sharded_searcher",
    "snippet",
    "verify_citation",
    "verify_collection",
    "verify_reader",
]
