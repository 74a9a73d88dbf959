"""A search request as small frozen types: ``SearchRequest`` and its parts (hybrid and rerank
options, a filter), each validated once, when it is made.

Every surface builds a ``SearchRequest`` (the CLI, the service, the page) and hands it to a
``Searcher``; the response's trace (``SearchTrace``) says how the answer was produced.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal, TypeAlias, get_args

from groundkit.config import (
    DEFAULT_LEG_DEPTH,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
    GROUP_DEPTH_PER_PAGE,
    MAX_GROUP_PASSAGES,
    MAX_LEG_DEPTH,
    MAX_QUERY_CHARS,
    MAX_RRF_K,
    MAX_TOP_K,
)
from groundkit.contracts import Chunk, Document
from groundkit.errors import InvalidQueryError
from groundkit.retrieval.floor import check_floor, check_share

__all__ = [
    "MAX_LEG_DEPTH",
    "MAX_RRF_K",
    "MODES",
    "GroupOptions",
    "HybridOptions",
    "MetadataValue",
    "RerankOptions",
    "SearchFilter",
    "SearchMode",
    "SearchRequest",
    "bounded_depth",
    "leg_depth_for",
]

SearchMode: TypeAlias = Literal["bm25", "dense", "hybrid"]
MODES: tuple[SearchMode, ...] = get_args(SearchMode)
MetadataValue: TypeAlias = str | int | float | bool


@dataclass(frozen=True, slots=True)
class HybridOptions:
    """Reciprocal-rank fusion settings (adr/0008): ``depth`` candidates per leg (default
    max(100, results wanted)), leg ``weights`` (lexical, dense), and the lexical evidence
    needed when the dense leg has none (adr/0049). The dense evidence floor is the request's
    ``min_similarity``, since dense searches use it too."""

    rrf_k: int = DEFAULT_RRF_K
    """The reciprocal-rank-fusion constant: a larger one flattens the ranks' weights."""
    depth: int | None = None
    """Candidates taken from each leg (default max(100, results wanted))."""
    weights: tuple[float, float] = (1.0, 1.0)
    """The legs' weights in the fusion: (lexical, dense)."""
    min_lexical_share: float | None = None
    """Without dense evidence, answer only when BM25's best reaches this share of the query's
    ideal score (0 answers on any match, as before adr/0049). None: the collection's recorded
    share (``groundkit calibrate``), else ``DEFAULT_MIN_LEXICAL_SHARE``."""

    def __post_init__(self) -> None:
        if _not_count(self.rrf_k) or not 1 <= self.rrf_k <= MAX_RRF_K:
            raise InvalidQueryError(
                f"rrf_k must be an integer from 1 to {MAX_RRF_K}, got {self.rrf_k!r}"
            )
        if not isinstance(self.weights, tuple | list):
            raise InvalidQueryError(f"weights must be two numbers, got {self.weights!r}")
        weights = tuple(self.weights)
        valid = len(weights) == 2 and all(
            isinstance(w, int | float) and not isinstance(w, bool) and math.isfinite(w) and w >= 0
            for w in weights
        )
        if not valid or not any(weights):
            raise InvalidQueryError(
                "weights must be two finite numbers >= 0, not both 0 (lexical, dense), got "
                f"{self.weights!r}"
            )
        object.__setattr__(self, "weights", weights)
        if self.depth is not None and _not_count(self.depth):
            raise InvalidQueryError(f"depth must be an integer, got {self.depth!r}")
        if self.min_lexical_share is not None:
            check_share(self.min_lexical_share)


@dataclass(frozen=True, slots=True)
class RerankOptions:
    """Re-score the best ``depth`` candidates (default max(50, top_k)) with the reranker."""

    depth: int | None = None
    """How many of the best candidates are re-scored (default max(50, top_k))."""

    def __post_init__(self) -> None:
        if self.depth is not None and _not_count(self.depth):
            raise InvalidQueryError(f"rerank depth must be an integer, got {self.depth!r}")


@dataclass(frozen=True, slots=True)
class GroupOptions:
    """Results grouped by source page (Pagefind's sub-results): ``top_k`` counts pages, each
    with up to ``passages`` of its best passages beneath it, pages ranked by their best
    passage's score plus half their second's (adr/0074). The pages are found among the best
    ``depth`` passages (default max(100, 10 x top_k)): a page none of whose passages ranks
    there is not listed."""

    passages: int = 3
    """Passages listed under each page (1 to ``MAX_GROUP_PASSAGES``), best first."""
    depth: int | None = None
    """Passages ranked before grouping (None: max(100, 10 x top_k))."""

    def __post_init__(self) -> None:
        if _not_count(self.passages) or not 1 <= self.passages <= MAX_GROUP_PASSAGES:
            raise InvalidQueryError(
                f"passages must be an integer from 1 to {MAX_GROUP_PASSAGES}, got {self.passages!r}"
            )
        if self.depth is not None and _not_count(self.depth):
            raise InvalidQueryError(f"group depth must be an integer, got {self.depth!r}")

    def depth_for(self, top_k: int) -> int:
        """Passages to rank before grouping: ``depth``, or max(100, 10 x ``top_k``)."""
        return bounded_depth(
            "group depth",
            self.depth,
            max(DEFAULT_LEG_DEPTH, GROUP_DEPTH_PER_PAGE * top_k),
            f"top_k ({top_k})",
            top_k,
            MAX_LEG_DEPTH,
        )


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Which chunks a search may return: those whose source path starts with
    ``source_prefix`` and whose chunk metadata holds every ``metadata`` item (a list-valued
    field, such as ``heading_path``, matches when it contains the value). Applied inside
    retrieval, so ``top_k`` counts only matching chunks."""

    source_prefix: str | None = None
    """Only sources whose path starts with this (``guide/``); None for all."""
    metadata: Mapping[str, MetadataValue] = field(default_factory=dict)
    """Chunk metadata items that must all match (a list-valued field must contain the value)."""

    def __post_init__(self) -> None:
        if self.source_prefix is not None and not isinstance(self.source_prefix, str):
            raise InvalidQueryError(
                f"source_prefix must be a string, got {type(self.source_prefix).__name__}"
            )
        if not isinstance(self.metadata, Mapping):
            raise InvalidQueryError(f"metadata must be a mapping, got {self.metadata!r}")
        items = dict(self.metadata)
        for key, value in items.items():
            if not isinstance(key, str) or not isinstance(value, MetadataValue):
                raise InvalidQueryError(
                    f"metadata filter items must be name -> str/int/float/bool, got {key!r}: "
                    f"{value!r}"
                )
        object.__setattr__(self, "metadata", MappingProxyType(items))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its fields, its metadata as a dict: a filter crosses processes with the
        steps of a sharded search (adr/0063)."""
        return (SearchFilter, (self.source_prefix, dict(self.metadata)))

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


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search, each concept in one form, checked when it is made: anything refused is an
    ``InvalidQueryError`` (a ``ConfigurationError``), REST's 422 and the CLI's exit 2.

    ``mode`` None takes the collection's default (``Searcher.default_mode``); what depends on
    the mode it resolves to (hybrid options on a bm25 search, say) is checked then.
    ``score_threshold`` drops results scoring below it (BM25 score, similarity or fused score).
    ``min_similarity`` is the similarity under which a passage counts as unrelated: dense drops
    it, hybrid takes no evidence from it (default: the collection's recorded floor, else the
    embedder's; -1 turns it off; adr/0024). ``lexical_bar`` is bm25's "nothing here" bar for
    this search (adr/0060; 0: whatever matched answers). ``rerank`` re-scores the best
    candidates with the searcher's reranker. ``group`` returns one entry per source page with
    its best passages beneath it (``top_k`` then counts pages; ``SearchResponse.groups``).
    ``where`` restricts results to matching chunks (``top_k`` counts only those). ``highlight``
    locates the query's words in each result. ``prefix`` lets the last word match the indexed
    terms it begins, ``fuzzy`` a word whose term is absent or rare match terms a typo away (bm25
    and hybrid; adr/0046).
    """

    query: str
    """The words to search for (non-empty, at most ``MAX_QUERY_CHARS``; never truncated)."""
    top_k: int = DEFAULT_TOP_K
    """How many results at most (1 to ``MAX_TOP_K``)."""
    mode: SearchMode | None = None
    """``bm25``, ``dense`` or ``hybrid``; None takes the collection's default."""
    score_threshold: float | None = None
    """Drop results scoring below this (BM25 score, similarity or fused score)."""
    min_similarity: float | None = None
    """The similarity under which a passage counts as unrelated (-1: off; None: the collection's
    floor)."""
    lexical_bar: float | None = None
    """bm25 says nothing is here when BM25's best is under this share of the ideal score of
    the query's most specific words (0: never, whatever matched answers; None: the
    collection's calibrated bar, where its calibration found one that separates; adr/0060,
    adr/0079), and, where it is over 0, when the query names a thing the collection lacks
    (adr/0080)."""
    hybrid: HybridOptions | None = None
    """Fusion settings for a hybrid search (None: the defaults)."""
    rerank: RerankOptions | None = None
    """Re-score the best candidates with the searcher's reranker (None: no reranking)."""
    where: SearchFilter | None = None
    """Restrict results to matching chunks (``top_k`` counts only those)."""
    highlight: bool = True
    """Locate the query's words in each result (``SearchResult.highlights``)."""
    prefix: bool = False
    """Let the last word match the indexed terms it begins (as you type)."""
    fuzzy: bool = False
    """Let a word whose term is absent or rare match terms a typo away (a rare word the text
    holds, only as the query's other words read it: adr/0081)."""
    group: GroupOptions | None = None
    """One entry per source page, its best passages beneath it (``top_k`` counts pages)."""

    def __post_init__(self) -> None:
        query, k = self.query, self.top_k
        if not isinstance(query, str):
            raise InvalidQueryError(f"the query must be a string, got {type(query).__name__}")
        if not query.strip():
            raise InvalidQueryError("the query is empty; pass some words to search for")
        if len(query) > MAX_QUERY_CHARS:
            raise InvalidQueryError(
                f"the query is {len(query)} characters long, over the {MAX_QUERY_CHARS} "
                "limit; shorten it (it is never truncated)"
            )
        if _not_count(k) or not 1 <= k <= MAX_TOP_K:
            raise InvalidQueryError(f"top_k must be an integer from 1 to {MAX_TOP_K}, got {k!r}")
        if self.mode is not None and self.mode not in MODES:
            raise InvalidQueryError(
                f"unknown search mode {self.mode!r}; this version supports: {', '.join(MODES)}",
                subject=str(self.mode),
            )
        threshold = self.score_threshold
        if threshold is not None and (_not_number(threshold) or not math.isfinite(threshold)):
            raise InvalidQueryError(f"score_threshold must be a finite number, got {threshold!r}")
        if self.min_similarity is not None:
            check_floor(self.min_similarity)
        bar = self.lexical_bar
        if bar is not None and (_not_number(bar) or not 0 <= bar <= 1):
            raise InvalidQueryError(f"lexical_bar must be a number from 0 to 1, got {bar!r}")
        for name, kind in (
            ("hybrid", HybridOptions),
            ("rerank", RerankOptions),
            ("group", GroupOptions),
        ):
            value = getattr(self, name)
            if value is not None and not isinstance(value, kind):
                raise InvalidQueryError(f"{name} must be a {kind.__name__}, got {value!r}")
        if self.where is not None and not isinstance(self.where, SearchFilter):
            raise InvalidQueryError(f"where must be a SearchFilter, got {self.where!r}")
        for name in ("highlight", "prefix", "fuzzy"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidQueryError(
                    f"{name} must be true or false, got {getattr(self, name)!r}"
                )
        if self.group is not None:
            self.group.depth_for(k)  # a depth under top_k is refused here, not mid-search
        if self.mode is not None:
            self.check_mode(self.mode)

    def check_mode(self, mode: SearchMode) -> None:
        """Refuse settings that ``mode`` (given, or the collection's default) does not use."""
        if mode == "bm25" and self.min_similarity is not None:
            raise InvalidQueryError(
                "min_similarity applies to modes 'dense' and 'hybrid'; in mode 'bm25' use "
                "score_threshold"
            )
        if mode != "hybrid" and self.hybrid is not None:
            raise InvalidQueryError(
                f"hybrid options apply to mode 'hybrid' only; in mode {mode!r} use "
                "score_threshold to cut results by score"
                + (", and lexical_bar for where it says nothing is here" if mode == "bm25" else "")
            )
        if mode != "bm25" and self.lexical_bar is not None:
            raise InvalidQueryError(
                "lexical_bar applies to mode 'bm25' only; "
                + (
                    "mode 'dense' has no BM25 leg: use mode 'bm25' (lexical_bar) or 'hybrid' "
                    "(its min_lexical_share)"
                    if mode == "dense"
                    else "in mode 'hybrid' the lexical share is hybrid's min_lexical_share"
                )
            )
        for name in ("prefix", "fuzzy"):
            if mode == "dense" and getattr(self, name):
                raise InvalidQueryError(
                    f"{name} expands words into indexed terms for BM25; mode 'dense' has no "
                    "BM25 leg: use mode 'bm25' or 'hybrid'"
                )

    @property
    def passages(self) -> int:
        """How many passages the search ranks: ``top_k``, or the group depth when grouped."""
        return self.top_k if self.group is None else self.group.depth_for(self.top_k)

    def with_mode(self, mode: SearchMode) -> SearchRequest:
        """This request in ``mode`` (checked), the resolved form a searcher runs."""
        if mode == self.mode:
            return self
        self.check_mode(mode)
        return replace(self, mode=mode)


def _not_count(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int)


def _not_number(value: object) -> bool:
    return isinstance(value, bool) or not isinstance(value, int | float)


def bounded_depth(
    name: str, given: int | None, default: int, floor: str, low: int, high: int
) -> int:
    """``given``, or max(``default``, ``low``) when None; refused outside ``low``..``high``."""
    chosen = max(default, low) if given is None else given
    if _not_count(chosen) or not low <= chosen <= high:
        raise InvalidQueryError(f"{name} must be an integer from {floor} to {high}, got {given!r}")
    return chosen


def leg_depth_for(depth: int | None, want: int) -> int:
    """Candidates per hybrid leg: ``depth``, or max(default, results wanted)."""
    return bounded_depth(
        "depth", depth, DEFAULT_LEG_DEPTH, f"the results wanted ({want})", want, MAX_LEG_DEPTH
    )
