"""A search request turned into the library's search call and its reply: the same steps for
any collection of the server, sharded or not, or held elsewhere (Ray Serve's): each is a
``groundkit.Searcher`` (adr/0063)."""

from __future__ import annotations

from collections.abc import Sequence

from groundkit import (
    GroupOptions,
    HybridOptions,
    RerankOptions,
    Searcher,
    SearchFilter,
    SearchRequest,
    SearchResponse,
    Verification,
)
from groundkit_serve.models import (
    ResultGroupOut,
    SearchArguments,
    SearchHit,
    SearchReply,
    VerificationOut,
)
from groundkit_serve.service_errors import ServiceError

__all__ = ["run_search", "search_reply", "search_request", "verification_out"]


def search_request(request: SearchArguments, max_top_k: int) -> SearchRequest:
    """The library's ``SearchRequest`` for ``request``, field for field (the library checks
    what fits together); ``top_k`` over the server's limit is refused here."""
    if request.top_k > max_top_k:
        raise ServiceError(
            422,
            "invalid",
            f"top_k {request.top_k} is over this server's limit of {max_top_k}; ask for fewer",
            "top_k",
        )
    hybrid, rerank, where, group = request.hybrid, request.rerank, request.where, request.group
    return SearchRequest(
        request.query,
        request.top_k,
        request.mode,
        score_threshold=request.score_threshold,
        min_similarity=request.min_similarity,
        lexical_bar=request.lexical_bar,
        hybrid=None
        if hybrid is None
        else HybridOptions(
            rrf_k=hybrid.rrf_k,
            depth=hybrid.depth,
            weights=(hybrid.weights[0], hybrid.weights[1]),
            min_lexical_share=hybrid.min_lexical_share,
        ),
        rerank=None if rerank is None else RerankOptions(depth=rerank.depth),
        where=None
        if where is None
        else SearchFilter(source_prefix=where.source_prefix, metadata=where.metadata),
        highlight=request.highlight,
        prefix=request.prefix,
        fuzzy=request.fuzzy,
        group=None if group is None else GroupOptions(passages=group.passages, depth=group.depth),
    )


def run_search(
    searcher: Searcher, wanted: SearchRequest, *, verify: bool
) -> tuple[SearchResponse, list[Verification]]:
    """``wanted`` run by ``searcher``, and each result's verdict when ``verify``."""
    response = searcher.search(wanted)
    return response, [searcher.verify(r) for r in response.results] if verify else []


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
