"""Search over a collection read view, and re-checking citations against their sources."""

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
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
)
from groundkit.retrieval.retriever import Retriever

__all__ = [
    "MODES",
    "CollectionVerification",
    "HybridOptions",
    "RerankOptions",
    "Retriever",
    "SearchFilter",
    "SearchMode",
    "Snippet",
    "Verdict",
    "Verification",
    "citation_for",
    "highlight_spans",
    "resolve_citation",
    "snippet",
    "verify_citation",
    "verify_collection",
    "verify_reader",
]
