"""A search request as small frozen types: the mode, hybrid and rerank options, a filter.

``Retriever.search`` takes these (or the equivalent keyword arguments) and validates them in
one place; the response's trace (``SearchTrace``) says how the answer was produced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias, get_args

from groundkit.config import DEFAULT_RRF_K
from groundkit.contracts import Chunk, Document
from groundkit.errors import ConfigurationError

__all__ = [
    "MODES",
    "HybridOptions",
    "MetadataValue",
    "RerankOptions",
    "SearchFilter",
    "SearchMode",
]

SearchMode: TypeAlias = Literal["bm25", "dense", "hybrid"]
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
MetadataValue: TypeAlias = str | int | float | bool


@dataclass(frozen=True, slots=True)
class HybridOptions:
    """Reciprocal-rank fusion settings (adr/0008): ``depth`` candidates per leg (default
    max(100, results wanted)), leg ``weights`` (lexical, dense), the dense evidence floor."""

    rrf_k: int = DEFAULT_RRF_K
    depth: int | None = None
    weights: tuple[float, float] = (1.0, 1.0)
    min_similarity: float | None = None

    def __post_init__(self) -> None:
        if isinstance(self.rrf_k, bool) or not isinstance(self.rrf_k, int) or self.rrf_k < 1:
            raise ConfigurationError(f"rrf_k must be an integer >= 1, got {self.rrf_k!r}")
        weights = tuple(self.weights)
        valid = len(weights) == 2 and all(
            isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w) and w >= 0
            for w in weights
        )
        if not valid or not any(weights):
            raise ConfigurationError(
                "weights must be two finite numbers >= 0, not both 0 (lexical, dense), got "
                f"{self.weights!r}"
            )
        object.__setattr__(self, "weights", weights)
        floor = self.min_similarity
        if floor is not None and (not isinstance(floor, int | float) or not math.isfinite(floor)):
            raise ConfigurationError(f"min_similarity must be a finite number, got {floor!r}")


@dataclass(frozen=True, slots=True)
class RerankOptions:
    """Re-score the best ``depth`` candidates (default max(50, top_k)) with the reranker."""

    depth: int | None = None


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Which chunks a search may return: those whose source path starts with
    ``source_prefix`` and whose chunk metadata holds every ``metadata`` item (a list-valued
    field, such as ``heading_path``, matches when it contains the value). Applied inside
    retrieval, so ``top_k`` counts only matching chunks."""

    source_prefix: str | None = None
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.source_prefix is not None and not isinstance(self.source_prefix, str):
            raise ConfigurationError(
                f"source_prefix must be a string, got {type(self.source_prefix).__name__}"
            )
        items = dict(self.metadata)
        for key, value in items.items():
            if not isinstance(key, str) or not isinstance(value, MetadataValue):
                raise ConfigurationError(
                    f"metadata filter items must be name -> str/int/float/bool, got {key!r}: "
                    f"{value!r}"
                )
        object.__setattr__(self, "metadata", MappingProxyType(items))

    @property
    def needs_chunks(self) -> bool:
        """Whether deciding needs chunk records (metadata), not only the source path."""
        return bool(self.metadata)

    def admits_source(self, source: str) -> bool:
        return self.source_prefix is None or source.startswith(self.source_prefix)

    def admits(self, chunk: Chunk, document: Document) -> bool:
        if not self.admits_source(document.source):
            return False
        for key, wanted in self.metadata.items():
            if key not in chunk.metadata:
                return False
            found = chunk.metadata[key]
            if isinstance(found, list | tuple):
                if wanted not in found:
                    return False
            elif found != wanted or type(found) is not type(wanted):
                return False
        return True

    def key(self) -> tuple[str | None, tuple[tuple[str, str], ...]]:
        """A hashable, order-free identity of the filter (for caching its chunk set)."""
        return self.source_prefix, tuple(sorted((k, repr(v)) for k, v in self.metadata.items()))

    def to_dict(self) -> dict[str, Any]:
        return {"source_prefix": self.source_prefix, "metadata": dict(self.metadata)}
