"""Search over a collection snapshot, and re-checking citations against their sources."""

from __future__ import annotations

from groundkit.retrieval.citations import (
    Verdict,
    Verification,
    citation_for,
    resolve_citation,
    verify_citation,
)
from groundkit.retrieval.retriever import MODES, Retriever

__all__ = [
    "MODES",
    "Retriever",
    "Verdict",
    "Verification",
    "citation_for",
    "resolve_citation",
    "verify_citation",
]
