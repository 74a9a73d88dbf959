"""The service's request and response shapes: pydantic models, whose JSON Schemas are the tools'.

Result fields carry the names of ``groundkit search --json`` (``start_offset``, ``end_offset``,
``source``, ...), so a client reads one shape from the CLI, REST and MCP.
"""

from __future__ import annotations

import math
import types
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

from groundkit import MAX_QUERY_CHARS

__all__ = [
    "CHUNK_ID_PATTERN",
    "COLLECTION_PATTERN",
    "MAX_TOP_K_SERVED",
    "CitationIn",
    "CollectionInfo",
    "CollectionList",
    "ConnectorDocument",
    "ConnectorFetchRequest",
    "ConnectorHit",
    "ConnectorResults",
    "ConnectorSearchRequest",
    "ErrorBody",
    "FetchChunkRequest",
    "FetchedChunk",
    "NoArguments",
    "SearchFields",
    "SearchHit",
    "SearchReply",
    "SearchRequest",
    "ServiceStatus",
    "VerificationOut",
    "VerifyFailure",
    "VerifyReply",
    "VerifyRequest",
]


MAX_TOP_K_SERVED = 100
"""The largest ``top_k`` the service accepts (the library's own cap is 1000); adr/0020."""
COLLECTION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
CHUNK_ID_PATTERN = r"^chk_[0-9a-f]{32}$"

Mode = Literal["bm25", "dense", "hybrid"]
Verdict = Literal["verified", "drifted", "unresolvable"]


def _json_type_problem(kinds: tuple[Any, ...], value: object) -> str | None:
    """Why ``value`` is not of the JSON type a field of ``kinds`` declares, or None."""
    if value is None or isinstance(value, dict | list):
        return None  # null and nested values are the model's own to judge
    if kinds == (bool,) or kinds == (bool, type(None)):
        return None if isinstance(value, bool) else "expected true or false"
    if isinstance(value, bool | str) and (int in kinds or float in kinds):
        return "expected a JSON number"
    if float in kinds and isinstance(value, float) and not math.isfinite(value):
        return "expected a finite number"
    return None


class _Request(BaseModel):
    """A request: unknown fields refused by name; numbers and booleans of their JSON types
    (pydantic's lax mode would take "3" for 3 and 0 for false, which the published schema
    does not allow; 3.0 stays an integer, as JSON Schema reads it)."""

    model_config = ConfigDict(extra="forbid")

    @model_validator(mode="before")
    @classmethod
    def _json_types(cls, data: Any) -> Any:
        if not isinstance(data, dict):
            return data
        for name, value in data.items():
            field = cls.model_fields.get(name)
            if field is None:
                continue
            annotation = field.annotation
            kinds = (
                get_args(annotation) if isinstance(annotation, types.UnionType) else (annotation,)
            )
            problem = _json_type_problem(kinds, value)
            if problem is not None:
                raise ValueError(f"{name}: {problem}")
            if int in kinds and isinstance(value, float) and value.is_integer():
                data = {**data, name: int(value)}
        return data


class SearchFields(_Request):
    """What a search asks, whichever collection answers it: the library's search arguments."""

    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="words to search for")
    mode: Mode | None = Field(
        default=None,
        description="bm25 (lexical), dense, or hybrid (both, fused); default: the collection's "
        "own (hybrid when it is bound to a semantic embedder, else bm25)",
    )
    top_k: int = Field(default=10, ge=1, le=MAX_TOP_K_SERVED, description="how many results")
    score_threshold: float | None = Field(
        default=None,
        description="drop results scoring below this (BM25 score, similarity, fused score)",
    )
    rrf_k: int | None = Field(
        default=None, ge=1, le=10_000, description="hybrid: reciprocal-rank-fusion k (default 60)"
    )
    depth: int | None = Field(
        default=None,
        ge=1,
        le=10_000,
        description="hybrid: candidates per leg (default max(100, top_k))",
    )
    lexical_weight: float | None = Field(
        default=None, ge=0, le=1000, description="hybrid: weight of BM25 leg"
    )
    dense_weight: float | None = Field(
        default=None, ge=0, le=1000, description="hybrid: weight of dense leg"
    )
    min_similarity: float | None = Field(
        default=None,
        ge=-1,
        le=1,
        description="hybrid: the dense evidence floor (default the embedder's)",
    )
    prefix: bool = Field(
        default=False,
        description="bm25/hybrid: the last word also matches the indexed words it begins, at "
        "3/4 weight (search as you type: 'paginat' finds pagination)",
    )
    fuzzy: bool = Field(
        default=False,
        description="bm25/hybrid: a word found nowhere (or almost) also matches indexed words "
        "one typo away (two from nine letters), at 3/4 weight",
    )
    group_passages: int | None = Field(
        default=None,
        ge=1,
        le=100,
        description="group by source page: one entry per page with up to this many of its best "
        "passages (top_k then counts pages; the reply's groups); default: not grouped",
    )
    rerank: bool = Field(default=False, description="re-score with the server's cross-encoder")
    rerank_depth: int | None = Field(
        default=None, ge=1, le=1000, description="rerank: how many candidates (default 50)"
    )
    source_prefix: str | None = Field(
        default=None,
        max_length=1024,
        description="only sources whose path starts with this (e.g. 'billing/'); exact: "
        "top_k counts matching chunks only",
    )
    where: dict[str, str | int | float | bool] | None = Field(
        default=None,
        max_length=32,
        description="only chunks whose metadata has each KEY equal to VALUE (or, for a list "
        "such as heading_path, containing it)",
    )
    verify: bool = Field(
        default=False, description="re-read each result's source and add a fresh verdict"
    )


class SearchRequest(SearchFields):
    """A search over one collection (the server's default when ``collection`` is omitted),
    sharded or not."""

    collection: str | None = Field(
        default=None,
        pattern=COLLECTION_PATTERN,
        description="collection name (default: the server's)",
    )


class VerificationOut(BaseModel):
    verdict: Verdict = Field(description="verified, drifted or unresolvable")
    reason: str


class ShardedSearchRequest(SearchFields):
    """A search over the sharded collection behind ``search_sharded`` (a Ray Serve one, say):
    the ranking and scores one collection over the same corpus would give."""


class SearchHit(BaseModel):
    """One ranked passage with its full citation (``groundkit search --json`` field names)."""

    content: str
    score: float
    document_id: str
    chunk_id: str
    source: str
    source_class: str
    start_offset: int = Field(description="0-based code-point offset into the source")
    end_offset: int = Field(description="end-exclusive code-point offset")
    start_line: int
    end_line: int
    start_page: int | None = Field(default=None, description="first page (PDF), 1-based")
    end_page: int | None = Field(default=None, description="last page (PDF), 1-based")
    extractor: dict[str, Any] | str | None = Field(
        default=None, description="the extractor identity of an extracted source"
    )
    metadata: dict[str, Any]
    highlights: list[tuple[int, int]] = Field(
        default_factory=list,
        description="[start, end] code-point spans of the query's words within content",
    )
    verification: VerificationOut | None = None


class ResultGroupOut(BaseModel):
    """One page of a grouped search: its passages are ``results`` at these positions."""

    document_id: str
    source: str
    score: float
    results: list[int]


class SearchReply(BaseModel):
    query: str
    collection: str
    generation: int = Field(description="the collection generation every result comes from")
    results: list[SearchHit]
    total_results: int
    metadata: dict[str, Any]
    groups: list[ResultGroupOut] | None = Field(
        default=None, description="a grouped search's pages, best first"
    )


class FetchChunkRequest(_Request):
    chunk_id: str = Field(pattern=CHUNK_ID_PATTERN, description="a chunk id from a search")
    collection: str | None = Field(default=None, pattern=COLLECTION_PATTERN)


class FetchedChunk(BaseModel):
    """A chunk's text, its citation, and a verdict re-checked against the source just now."""

    collection: str
    generation: int
    chunk_id: str
    document_id: str
    content: str
    source: str
    source_class: str
    start_offset: int
    end_offset: int
    start_line: int
    end_line: int
    start_page: int | None = None
    end_page: int | None = None
    extractor: dict[str, Any] | str | None = None
    metadata: dict[str, Any]
    verification: VerificationOut


class CitationIn(_Request):
    source: str = Field(min_length=1, max_length=4096)
    start_offset: int = Field(ge=0)
    end_offset: int = Field(ge=0)
    text: str = Field(max_length=1_000_000, description="the cited text to compare")
    document_id: str | None = Field(
        default=None,
        description="the document (from a search result), when two roots hold one source",
    )


class VerifyRequest(_Request):
    """Verify one chunk, one citation, or (with neither) the whole collection."""

    collection: str | None = Field(default=None, pattern=COLLECTION_PATTERN)
    chunk_id: str | None = Field(default=None, pattern=CHUNK_ID_PATTERN)
    citation: CitationIn | None = None


class VerifyFailure(BaseModel):
    source: str
    start_offset: int
    end_offset: int
    verdict: Verdict
    reason: str


class VerifyReply(BaseModel):
    collection: str
    generation: int
    checked: int
    verified: int
    drifted: int
    unresolvable: int
    integrity_problems: list[str]
    failures: list[VerifyFailure] = Field(description="the first failures (at most 100)")
    failures_total: int


class CollectionInfo(BaseModel):
    name: str
    ok: bool
    generation: int | None = None
    documents: int | None = None
    chunks: int | None = None
    shards: int | None = Field(default=None, description="a sharded collection's shard count")
    embedding: str | None = Field(default=None, description="the embedding model, None if lexical")
    error: str | None = Field(default=None, description="why the collection cannot be served")


class CollectionList(BaseModel):
    index_dir: str
    default_collection: str
    collections: list[CollectionInfo]


class ServiceStatus(BaseModel):
    version: str
    index_dir: str
    default_collection: str
    open_collections: dict[str, int] = Field(description="name -> generation of open read views")
    max_open_collections: int
    max_top_k: int
    workers: int
    timeout_s: float
    requests: int
    errors: int
    threads: int = Field(description="the server's threads now (bounded by --workers)")
    verifications_running: int = Field(
        description="whole-collection verifies running now, each in its own process"
    )
    verifications_cancelled: int = Field(
        description="whole-collection verifies stopped because their request timed out or was "
        "cancelled (their process ended at once)"
    )
    refreshes: int
    refresh_errors: dict[str, str] = Field(
        description="collection -> why its newer generation could not be opened (the older "
        "read view keeps serving)"
    )
    uptime_s: float


class NoArguments(_Request):
    """This tool takes no arguments."""


class ConnectorSearchRequest(_Request):
    query: str = Field(min_length=1, max_length=MAX_QUERY_CHARS, description="what to look for")


class ConnectorFetchRequest(_Request):
    id: str = Field(
        min_length=1, max_length=200, description="an id from search: <collection>/<chunk_id>"
    )


class ConnectorHit(BaseModel):
    id: str
    title: str
    url: str


class ConnectorResults(BaseModel):
    results: list[ConnectorHit]


class ConnectorDocument(BaseModel):
    id: str
    title: str
    text: str
    url: str
    metadata: dict[str, Any]


class ErrorBody(BaseModel):
    error: str = Field(description="a stable code: not_found, invalid, unavailable, ...")
    message: str
    subject: str | None = None
