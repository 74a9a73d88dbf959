"""``search_sharded``: a sharded collection behind the same registry (adr/0028).

The search is any callable with ``Retriever.search``'s arguments, such as
``groundkit_ray``'s ``ShardedSearchTool`` (a ``ShardedSearch`` that scatters to Ray Serve
replicas); sharded collections under the index folder need none of this, ``search`` serves
them by name. Either answers exactly as one collection over the same corpus, and fails
rather than answer from some shards only.
"""

from __future__ import annotations

from collections.abc import Callable

from groundkit import SearchResponse
from groundkit_serve.models import SearchReply, ShardedSearchRequest
from groundkit_serve.searching import search_arguments, search_reply
from groundkit_serve.spec import ToolSpec

__all__ = ["ShardedSearch", "sharded_search_tool"]

ShardedSearch = Callable[..., SearchResponse]


def sharded_search_tool(search: ShardedSearch, name: str, max_top_k: int) -> ToolSpec:
    """The ``search_sharded`` tool over ``search`` (sharded collection ``name``)."""

    def run(request: ShardedSearchRequest) -> SearchReply:
        response = search(request.query, **search_arguments(request, max_top_k))
        generation = int(response.metadata.get("generation", 0))
        return search_reply(response, name, generation)

    return ToolSpec(
        "search_sharded",
        "Search the sharded collection",
        "Ranked passages from every shard of the server's sharded collection, scored with "
        "collection-wide statistics: exactly the ranking one collection over the same corpus "
        "would give; the same arguments as search (filters, fusion, rerank). Fails rather "
        "than answer from some shards only.",
        ShardedSearchRequest,
        SearchReply,
        run,
    )
