"""``search_sharded``: a sharded collection behind the same registry (adr/0028).

The search is any object with ``Searcher``'s ``search`` and ``verify``, such as
``groundkit_ray``'s ``ShardedSearchTool`` (a ``Searcher`` that scatters to Ray Serve
replicas); sharded collections under the index folder need none of this, ``search`` serves
them by name. Either answers exactly as one collection over the same corpus, and fails
rather than answer from some shards only.
"""

from __future__ import annotations

from typing import Protocol

from groundkit import SearchRequest, SearchResponse, SearchResult, Verification
from groundkit_serve.models import SearchReply, ShardedSearchRequest
from groundkit_serve.searching import search_reply, search_request
from groundkit_serve.spec import ToolSpec

__all__ = ["ShardedSearch", "sharded_search_tool"]


class ShardedSearch(Protocol):
    """A sharded collection's search and citation check, as ``Retriever``'s (a
    ``groundkit.Searcher``: ``ShardedRetriever``, Ray's ``ShardedSearchTool``)."""

    def search(self, request: SearchRequest) -> SearchResponse: ...

    def verify(self, result: SearchResult) -> Verification: ...


def sharded_search_tool(sharded: ShardedSearch, name: str, max_top_k: int) -> ToolSpec:
    """The ``search_sharded`` tool over ``sharded`` (sharded collection ``name``)."""

    def run(request: ShardedSearchRequest) -> SearchReply:
        response = sharded.search(search_request(request, max_top_k))
        checks = [sharded.verify(r) for r in response.results] if request.verify else []
        generation = int(response.metadata.get("generation", 0))
        return search_reply(response, name, generation, checks)

    return ToolSpec(
        "search_sharded",
        "Search the sharded collection",
        "Ranked passages from every shard of the server's sharded collection, scored with "
        "collection-wide statistics: exactly the ranking one collection over the same corpus "
        "would give; the same arguments as search (filters, fusion, rerank, verify). Fails "
        "rather than answer from some shards only.",
        ShardedSearchRequest,
        SearchReply,
        run,
    )
