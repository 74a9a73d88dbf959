"""The service's request and response shapes: pydantic models, whose JSON Schemas are the tools'.

``SearchArguments`` mirrors ``groundkit.SearchRequest`` (its defaults, limits and field
descriptions are read from it), so the wire, the CLI and the library ask one request.

Result fields carry the names of ``groundkit search --json`` (``start_offset``, ``end_offset``,
``source``, ...), so a client reads one shape from the CLI, REST and MCP.
"""

from __future__ import annotations

import ast
import functools
import inspect
import itertools
import textwrap
from dataclasses import fields
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError

from groundkit import (
    MAX_GROUP_PASSAGES,
    MAX_LEG_DEPTH,
    MAX_QUERY_CHARS,
    MAX_RRF_K,
    MAX_TOP_K,
    GroupOptions,
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchMode,
)
from groundkit import SearchRequest as LibraryRequest
from groundkit_serve.service_errors import validation_message

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
    "GroupArguments",
    "HybridArguments",
    "NoArguments",
    "RerankArguments",
    "ResultGroupOut",
    "SearchArguments",
    "SearchHit",
    "SearchReply",
    "ServiceStatus",
    "VerificationOut",
    "VerifyFailure",
    "VerifyReply",
    "VerifyRequest",
    "WhereArguments",
    "invalid_message",
]


MAX_TOP_K_SERVED = 100
"""The largest ``top_k`` the service accepts (the library's own cap is 1000); adr/0020."""
COLLECTION_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$"
CHUNK_ID_PATTERN = r"^chk_[0-9a-f]{32}$"

Mode = SearchMode
Verdict = Literal["verified", "drifted", "unresolvable"]


def _whole(value: Any) -> Any:
    """3.0 is the integer 3, as JSON Schema reads it; anything else goes to the strict check."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


Whole = Annotated[int, BeforeValidator(_whole)]
"""An integer field: a JSON integer (or integral number), never a string or a boolean."""
LegDepth = Annotated[int, Field(ge=1, le=MAX_LEG_DEPTH), BeforeValidator(_whole)]
RerankDepth = Annotated[int, Field(ge=1, le=MAX_TOP_K), BeforeValidator(_whole)]


def invalid_message(exc: ValidationError) -> str:
    """A refusal naming each field at fault and why, never echoing values or links (REST's
    422 and MCP's tool error say the same)."""
    return validation_message(exc.errors())


class _Request(BaseModel):
    """A request, validated strictly and once: unknown fields refused by name; numbers,
    booleans and strings only of their JSON types (pydantic's lax mode would take "5" for 5
    and 1 for true, which the published schema does not allow); no NaN or infinity. REST
    and MCP both call ``model_validate`` on the same model (adr/0057)."""

    model_config = ConfigDict(extra="forbid", strict=True, allow_inf_nan=False)


@functools.cache
def _field_docs(kind: type) -> dict[str, str]:
    """Each field of the library's dataclass ``kind`` -> its docstring on one line, without
    reST markup: the schema's descriptions are the Python reference's (adr/0057)."""
    tree = ast.parse(textwrap.dedent(inspect.getsource(kind)))
    body = tree.body[0].body if isinstance(tree.body[0], ast.ClassDef) else []
    docs: dict[str, str] = {}
    for statement, following in itertools.pairwise(body):
        if (
            isinstance(statement, ast.AnnAssign)
            and isinstance(statement.target, ast.Name)
            and isinstance(following, ast.Expr)
            and isinstance(following.value, ast.Constant)
            and isinstance(following.value.value, str)
        ):
            docs[statement.target.id] = " ".join(following.value.value.split()).replace("``", "")
    return docs


def _doc(kind: type, name: str) -> str:
    """The description of field ``name`` of the library's request type ``kind``: its docstring
    (tests/core/test_field_docstrings.py holds every field to having one)."""
    return _field_docs(kind)[name]


def _default(kind: type, name: str) -> Any:
    found = next(f for f in fields(kind) if f.name == name)
    return found.default


def _like(kind: type, name: str, **constraints: Any) -> Any:
    """A field of the library's ``kind``: its default and its description."""
    return Field(default=_default(kind, name), description=_doc(kind, name), **constraints)


class HybridArguments(_Request):
    """groundkit.HybridOptions on the wire: fusion settings (mode hybrid only)."""

    rrf_k: Whole = _like(HybridOptions, "rrf_k", ge=1, le=MAX_RRF_K)
    depth: LegDepth | None = _like(HybridOptions, "depth")
    weights: list[float] = Field(
        default_factory=lambda: list(_default(HybridOptions, "weights")),
        min_length=2,
        max_length=2,
        description=_doc(HybridOptions, "weights"),
    )
    min_lexical_share: float | None = _like(HybridOptions, "min_lexical_share", ge=0, le=1)


class RerankArguments(_Request):
    """groundkit.RerankOptions on the wire: re-score with the server's reranker."""

    depth: RerankDepth | None = _like(RerankOptions, "depth")


class WhereArguments(_Request):
    """groundkit.SearchFilter on the wire: which chunks may answer."""

    source_prefix: str | None = _like(SearchFilter, "source_prefix", max_length=1024)
    metadata: dict[str, str | int | float | bool] = Field(
        default_factory=dict, max_length=32, description=_doc(SearchFilter, "metadata")
    )


class GroupArguments(_Request):
    """groundkit.GroupOptions on the wire: one entry per source page (the reply's groups)."""

    passages: Whole = _like(GroupOptions, "passages", ge=1, le=MAX_GROUP_PASSAGES)
    depth: LegDepth | None = _like(GroupOptions, "depth")


class SearchArguments(_Request):
    """A search's arguments on the wire (a REST body, an MCP tool call): groundkit.SearchRequest
    field for field (nested hybrid, rerank, where, group), plus the service's own ``verify`` and
    ``collection``. The library's request checks what fits together."""

    query: str = Field(
        min_length=1, max_length=MAX_QUERY_CHARS, description=_doc(LibraryRequest, "query")
    )
    top_k: Whole = _like(LibraryRequest, "top_k", ge=1, le=MAX_TOP_K_SERVED)
    mode: Mode | None = _like(LibraryRequest, "mode")
    score_threshold: float | None = _like(LibraryRequest, "score_threshold")
    min_similarity: float | None = _like(LibraryRequest, "min_similarity", ge=-1, le=1)
    lexical_bar: float | None = _like(LibraryRequest, "lexical_bar", ge=0, le=1)
    hybrid: HybridArguments | None = _like(LibraryRequest, "hybrid")
    rerank: RerankArguments | None = _like(LibraryRequest, "rerank")
    where: WhereArguments | None = _like(LibraryRequest, "where")
    highlight: bool = _like(LibraryRequest, "highlight")
    prefix: bool = _like(LibraryRequest, "prefix")
    fuzzy: bool = _like(LibraryRequest, "fuzzy")
    group: GroupArguments | None = _like(LibraryRequest, "group")
    verify: bool = Field(
        default=False, description="re-read each result's source and add a fresh verdict"
    )
    collection: str | None = Field(
        default=None,
        pattern=COLLECTION_PATTERN,
        description="collection name, sharded or not (default: the server's)",
    )


class VerificationOut(BaseModel):
    verdict: Verdict = Field(description="verified, drifted or unresolvable")
    reason: str


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
    score: float = Field(
        description="the page's rank score: its best passage's plus half its second's"
        " (a negative second adds nothing)"
    )
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
    start_offset: Whole = Field(ge=0)
    end_offset: Whole = Field(ge=0)
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
    processes: int = Field(description="server processes sharing the socket (--processes)")
    process: int = Field(
        description="the id of the process that answered (counts and open views are its own)"
    )
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
