"""A search request turned into the library's search call and its reply: the same steps for
``search`` (any collection of the server, sharded or not) and ``search_sharded``."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from groundkit import (
    ConfigurationError,
    GroupOptions,
    HybridOptions,
    RerankOptions,
    SearchFilter,
    SearchRequest,
    SearchResponse,
    Verification,
)
from groundkit_serve.models import (
    ResultGroupOut,
    SearchFields,
    SearchHit,
    SearchReply,
    VerificationOut,
)
from groundkit_serve.service_errors import ServiceError

__all__ = ["search_reply", "search_request", "verification_out"]


def search_request(request: SearchFields, max_top_k: int) -> SearchRequest:
    """The library's ``SearchRequest`` for ``request`` (it checks what fits together);
    ``top_k`` over the server's limit is refused here."""
    if request.top_k > max_top_k:
        raise ServiceError(
            400,
            "invalid",
            f"top_k {request.top_k} is over this server's limit of {max_top_k}; ask for fewer",
            "top_k",
        )
    hybrid = None  # hybrid settings go to the library as given: it refuses them elsewhere
    weights = (request.lexical_weight, request.dense_weight)
    if request.rrf_k is not None or request.depth is not None or weights != (None, None):
        hybrid = HybridOptions(
            depth=request.depth,
            weights=(
                1.0 if request.lexical_weight is None else request.lexical_weight,
                1.0 if request.dense_weight is None else request.dense_weight,
            ),
        )
        if request.rrf_k is not None:
            hybrid = replace(hybrid, rrf_k=request.rrf_k)
    if request.rerank_depth is not None and not request.rerank:
        raise ConfigurationError("rerank_depth is set but rerank is off; pass rerank: true")
    where = None
    if request.source_prefix is not None or request.where:
        where = SearchFilter(source_prefix=request.source_prefix, metadata=request.where or {})
    return SearchRequest(
        request.query,
        request.top_k,
        request.mode,
        score_threshold=request.score_threshold,
        min_similarity=request.min_similarity,
        hybrid=hybrid,
        rerank=RerankOptions(depth=request.rerank_depth) if request.rerank else None,
        where=where,
        prefix=request.prefix,
        fuzzy=request.fuzzy,
        group=None if request.group_passages is None else GroupOptions(request.group_passages),
    )


def verification_out(check: Verification) -> VerificationOut:
    return VerificationOut(verdict=check.verdict, reason=check.reason)


def search_reply(
    response: SearchResponse,
    collection: str,
    generation: int,
    checks: Sequence[Verification] = (),
) -> SearchReply:
    """The reply of a search: the library's results field for field, with any verdicts."""
    payload = response.to_dict()
    hits = [SearchHit(**item) for item in payload["results"]]
    for hit, check in zip(hits, checks, strict=False):
        hit.verification = verification_out(check)
    return SearchReply(
        query=response.query,
        collection=collection,
        generation=generation,
        results=hits,
        total_results=len(hits),
        metadata=payload["metadata"],
        groups=None
        if response.groups is None
        else [ResultGroupOut(**group) for group in payload["groups"]],
    )
