"""``search_sharded``: a sharded collection behind the same registry (adr/0028).

The search itself is a callable ``(query, top_k, mode, *, score_threshold)``:
``groundkit.shards.ShardedRetriever.search`` in this process, or ``groundkit_ray``'s
``ShardedSearchTool``, which scatters to Ray Serve replicas. Either answers exactly as one
collection over the same corpus, and fails rather than answer from some shards only.
"""

from __future__ import annotations

from collections.abc import Callable

from groundkit import SearchResponse
from groundkit_serve.errors import ServiceError
from groundkit_serve.models import SearchHit, SearchReply, ShardedSearchRequest
from groundkit_serve.spec import ToolSpec

__all__ = ["ShardedSearch", "sharded_search_tool"]

ShardedSearch = Callable[..., SearchResponse]


def sharded_search_tool(search: ShardedSearch, name: str, max_top_k: int) -> ToolSpec:
    """The ``search_sharded`` tool over ``search`` (sharded collection ``name``)."""

    def run(request: ShardedSearchRequest) -> SearchReply:
        if request.top_k > max_top_k:
            raise ServiceError(
                400,
                "invalid",
                f"top_k {request.top_k} is over this server's limit of {max_top_k}; ask for fewer",
                "top_k",
            )
        response = search(
            request.query, request.top_k, request.mode, score_threshold=request.score_threshold
        )
        payload = response.to_dict()
        return SearchReply(
            query=response.query,
            collection=name,
            generation=int(payload["metadata"].get("generation", 0)),
            results=[SearchHit(**item) for item in payload["results"]],
            total_results=len(payload["results"]),
            metadata=payload["metadata"],
        )

    return ToolSpec(
        "search_sharded",
        "Search the sharded collection",
        "Ranked passages from every shard of the server's sharded collection, scored with "
        "collection-wide statistics: exactly the ranking one collection over the same corpus "
        "would give. Fails rather than answer from some shards only.",
        ShardedSearchRequest,
        SearchReply,
        run,
    )
