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

from groundkit.config import (
    DEFAULT_LEG_DEPTH,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
    MAX_QUERY_CHARS,
    MAX_TOP_K,
)
from groundkit.contracts import Chunk, Document
from groundkit.errors import ConfigurationError, InvalidQueryError
from groundkit.retrieval.floor import check_floor, check_share

__all__ = [
    "MODES",
    "HybridOptions",
    "MetadataValue",
    "RerankOptions",
    "SearchFilter",
    "SearchMode",
    "bounded_depth",
    "check_expansion",
    "hybrid_options",
    "leg_depth_for",
    "rerank_options",
    "validate_request",
]

SearchMode: TypeAlias = Literal["bm25", "dense", "hybrid"]
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
MetadataValue: TypeAlias = str | int | float | bool


@dataclass(frozen=True, slots=True)
class HybridOptions:
    """Reciprocal-rank fusion settings (adr/0008): ``depth`` candidates per leg (default
    max(100, results wanted)), leg ``weights`` (lexical, dense), the dense evidence floor, and
    the lexical evidence needed when the dense leg has none (adr/0049)."""

    rrf_k: int = DEFAULT_RRF_K
    depth: int | None = None
    weights: tuple[float, float] = (1.0, 1.0)
    min_similarity: float | None = None
    min_lexical_share: float | None = None
    """Without dense evidence, answer only when BM25's best reaches this share of the query's
    ideal score (0 answers on any match, as before adr/0049). None: the collection's recorded
    share (``groundkit calibrate``), else ``DEFAULT_MIN_LEXICAL_SHARE``."""

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
        if self.min_similarity is not None:
            check_floor(self.min_similarity)
        if self.min_lexical_share is not None:
            check_share(self.min_lexical_share)


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


MAX_LEG_DEPTH = 100 * MAX_TOP_K
"""The most candidates a hybrid leg may fetch."""


def validate_request(
    query: str, top_k: int | None, mode: str, score_threshold: float | None
) -> int:
    """The number of results wanted; ``InvalidQueryError`` for a request refused as given."""
    if not isinstance(query, str) or not query.strip():
        raise InvalidQueryError("the query is empty; pass some words to search for")
    if len(query) > MAX_QUERY_CHARS:
        raise InvalidQueryError(
            f"the query is {len(query)} characters long, over the {MAX_QUERY_CHARS} limit; "
            "shorten it (it is never truncated)"
        )
    k = DEFAULT_TOP_K if top_k is None else top_k
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_TOP_K:
        raise InvalidQueryError(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {top_k!r}")
    if mode not in MODES:
        raise InvalidQueryError(
            f"unknown search mode {mode!r}; this version supports: {', '.join(MODES)}",
            subject=str(mode),
        )
    if score_threshold is not None and (
        isinstance(score_threshold, bool)
        or not isinstance(score_threshold, int | float)
        or not math.isfinite(score_threshold)
    ):
        raise InvalidQueryError(f"score_threshold must be a finite number, got {score_threshold!r}")
    return k


def check_expansion(mode: str, prefix: object, fuzzy: object) -> None:
    """Refuse ``prefix``/``fuzzy`` that are not booleans, or set in a mode without BM25."""
    for name, value in (("prefix", prefix), ("fuzzy", fuzzy)):
        if not isinstance(value, bool):
            raise ConfigurationError(f"{name} must be true or false, got {value!r}")
        if value and mode == "dense":
            raise ConfigurationError(
                f"{name} expands words into indexed terms for BM25; mode 'dense' has no BM25 "
                "leg: use mode 'bm25' or 'hybrid'"
            )


def _not_count(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


def bounded_depth(
    name: str, given: int | None, default: int, floor: str, low: int, high: int
) -> int:
    """``given``, or max(``default``, ``low``) when None; refused outside ``low``..``high``."""
    chosen = max(default, low) if given is None else given
    if _not_count(chosen) or not low <= chosen <= high:
        raise ConfigurationError(f"{name} must be an integer from {floor} to {high}, got {given!r}")
    return chosen


def leg_depth_for(depth: int | None, want: int) -> int:
    """Candidates per hybrid leg: ``depth``, or max(default, results wanted)."""
    return bounded_depth(
        "depth", depth, DEFAULT_LEG_DEPTH, f"the results wanted ({want})", want, MAX_LEG_DEPTH
    )


def hybrid_options(
    mode: str,
    hybrid: HybridOptions | None,
    rrf_k: int | None,
    depth: int | None,
    weights: tuple[float, float] | None,
    min_similarity: float | None,
) -> HybridOptions | None:
    """The fusion settings, from ``hybrid`` or the same settings given as keywords."""
    loose = {
        name: value
        for name, value in (
            ("rrf_k", rrf_k),
            ("depth", depth),
            ("weights", weights),
            ("min_similarity", min_similarity),
        )
        if value is not None
    }
    if hybrid is not None and loose:
        raise ConfigurationError(
            f"pass the fusion settings once: hybrid=HybridOptions(...) or {', '.join(loose)} "
            "as keywords, not both"
        )
    if mode != "hybrid":
        if mode == "dense":  # the similarity floor applies to dense too (adr/0024)
            loose.pop("min_similarity", None)
        elif "min_similarity" in loose:
            raise ConfigurationError(
                "min_similarity applies to modes 'dense' and 'hybrid'; in mode 'bm25' use "
                "score_threshold"
            )
        if hybrid is not None or loose:
            names = ", ".join(loose) or "hybrid"
            raise ConfigurationError(
                f"{names} applies to mode 'hybrid' only; in mode {mode!r} use score_threshold"
            )
        return None
    if hybrid is not None:
        return hybrid
    return HybridOptions(
        rrf_k=DEFAULT_RRF_K if rrf_k is None else rrf_k,
        depth=depth,
        weights=(1.0, 1.0) if weights is None else weights,
        min_similarity=min_similarity,
    )


def rerank_options(rerank: bool | RerankOptions, depth: int | None) -> RerankOptions | None:
    """The rerank settings, from ``rerank`` (True or ``RerankOptions``) and ``rerank_depth``."""
    if isinstance(rerank, RerankOptions):
        if depth is not None:
            raise ConfigurationError("pass rerank_depth once: in RerankOptions or as a keyword")
        return rerank
    if not rerank:
        if depth is not None:
            raise ConfigurationError("rerank_depth is set but rerank is off; pass rerank=True")
        return None
    return RerankOptions(depth=depth)
