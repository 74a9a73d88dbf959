"""The two-tool shape ChatGPT-style connectors require, over the registry's own functions:
``search`` (ids, titles, urls) and ``fetch`` (text, with the citation and a fresh verdict as
metadata). An id is ``<collection>/<chunk_id>``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit_serve.models import (
    ConnectorDocument,
    ConnectorFetchRequest,
    ConnectorHit,
    ConnectorResults,
    ConnectorSearchRequest,
    FetchChunkRequest,
    SearchArguments,
)
from groundkit_serve.service_errors import ServiceError
from groundkit_serve.spec import CHUNK_URI, ToolSpec

if TYPE_CHECKING:
    from groundkit_serve.tools import Registry

__all__ = ["connector_tools"]


def connector_tools(registry: Registry) -> dict[str, ToolSpec]:
    """``search`` and ``fetch`` over ``registry``."""

    def search(request: ConnectorSearchRequest) -> ConnectorResults:
        reply = registry.search(SearchArguments(query=request.query))
        return ConnectorResults(
            results=[
                ConnectorHit(
                    id=f"{reply.collection}/{hit.chunk_id}",
                    title=f"{hit.source}:{hit.start_line}-{hit.end_line}",
                    url=CHUNK_URI.format(collection=reply.collection, chunk_id=hit.chunk_id),
                )
                for hit in reply.results
            ]
        )

    def fetch(request: ConnectorFetchRequest) -> ConnectorDocument:
        collection, _, chunk_id = request.id.rpartition("/")
        try:
            asked = FetchChunkRequest(chunk_id=chunk_id, collection=collection or None)
        except ValueError:
            raise ServiceError(
                400, "invalid", f"{request.id!r} is not an id from search", request.id
            ) from None
        chunk = registry.fetch_chunk(asked)
        return ConnectorDocument(
            id=request.id,
            title=f"{chunk.source}:{chunk.start_line}-{chunk.end_line}",
            text=chunk.content,
            url=CHUNK_URI.format(collection=chunk.collection, chunk_id=chunk.chunk_id),
            metadata=chunk.model_dump(exclude={"content", "chunk_id"}),
        )

    return {
        "search": ToolSpec(
            "search",
            "Search",
            "Search the default collection; returns ids, titles and urls for fetch.",
            ConnectorSearchRequest,
            ConnectorResults,
            search,
        ),
        "fetch": ToolSpec(
            "fetch",
            "Fetch",
            "The text of a search result by id, with its citation and a fresh verdict.",
            ConnectorFetchRequest,
            ConnectorDocument,
            fetch,
        ),
    }
