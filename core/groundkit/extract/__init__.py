"""Extractors: PDF and HTML to text, each with an identity recorded per document.

An extracted document's offsets index the extractor's output; ``verify`` re-extracts with an
extractor of the same identity, or calls the citation ``unresolvable``
(adr/0021-extractor-identity.md).
"""

from __future__ import annotations

from groundkit.extract.extractor import Extraction, Extractor, ExtractorIdentity
from groundkit.extract.extractor_registry import (
    extractor_for_identity,
    extractor_for_source,
    extractor_names,
    register_extractor,
)

__all__ = [
    "Extraction",
    "Extractor",
    "ExtractorIdentity",
    "extractor_for_identity",
    "extractor_for_source",
    "extractor_names",
    "register_extractor",
]
