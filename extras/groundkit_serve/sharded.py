"""A sharded collection held elsewhere behind the same registry (adr/0028, adr/0057): ``search``
with its name as ``collection``.

The search is any object with ``Searcher``'s ``search`` and ``verify``, such as
``groundkit_ray``'s ``ShardedSearchTool`` (a ``Searcher`` that scatters to Ray Serve
replicas); sharded collections under the index folder need none of this, ``search`` serves
them by name. Either answers exactly as one collection over the same corpus, and fails
rather than answer from some shards only.
"""

from __future__ import annotations

from typing import Protocol

from groundkit import SearchRequest, SearchResponse, SearchResult, Verification
from groundkit_serve.models import SearchArguments, SearchReply
from groundkit_serve.searching import search_reply

__all__ = ["ShardedSearch", "sharded_search"]


class ShardedSearch(Protocol):
    """A sharded collection's search and citation check, as ``Retriever``'s (a
    ``groundkit.Searcher``: ``ShardedRetriever``, Ray's ``ShardedSearchTool``)."""

    def search(self, request: SearchRequest) -> SearchResponse: ...

    def verify(self, result: SearchResult) -> Verification: ...


def sharded_search(
    sharded: ShardedSearch, name: str, request: SearchArguments, wanted: SearchRequest
) -> SearchReply:
    """``wanted`` run by ``sharded`` (collection ``name``), with verdicts when asked."""
    response = sharded.search(wanted)
    checks = [sharded.verify(r) for r in response.results] if request.verify else []
    generation = int(response.metadata.get("generation", 0))
    return search_reply(response, name, generation, checks)
