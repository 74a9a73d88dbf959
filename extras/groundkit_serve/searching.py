"""A search request turned into the library's search call and its reply: the same steps for
``search`` (any collection of the server, sharded or not) and ``search_sharded``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from groundkit import SearchFilter, SearchResponse, Verification
from groundkit_serve.models import SearchFields, SearchHit, SearchReply, VerificationOut
from groundkit_serve.service_errors import ServiceError

__all__ = ["search_arguments", "search_reply", "verification_out"]


def search_arguments(request: SearchFields, max_top_k: int) -> dict[str, Any]:
    """The keywords of ``Retriever.search`` (and ``ShardedSearch.search``) for ``request``;
    ``top_k`` over the server's limit is refused here."""
    if request.top_k > max_top_k:
        raise ServiceError(
            400,
            "invalid",
            f"top_k {request.top_k} is over this server's limit of {max_top_k}; ask for fewer",
            "top_k",
        )
    weights = None  # hybrid settings go to the library as given: it refuses them elsewhere
    if request.lexical_weight is not None or request.dense_weight is not None:
        weights = (
            1.0 if request.lexical_weight is None else request.lexical_weight,
            1.0 if request.dense_weight is None else request.dense_weight,
        )
    where = None
    if request.source_prefix is not None or request.where:
        where = SearchFilter(source_prefix=request.source_prefix, metadata=request.where or {})
    return {
        "top_k": request.top_k,
        "mode": request.mode,
        "score_threshold": request.score_threshold,
        "rerank": request.rerank,
        "rerank_depth": request.rerank_depth,
        "where": where,
        "rrf_k": request.rrf_k,
        "depth": request.depth,
        "weights": weights,
        "min_similarity": request.min_similarity,
        "prefix": request.prefix,
        "fuzzy": request.fuzzy,
    }


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
    )
