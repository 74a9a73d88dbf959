"""The registry served over MCP (stdio and streamable HTTP) with the official SDK's MCPServer.

Each tool's parameters are its pydantic request model's fields, so the tool's input schema is
the model's; its output schema is the reply model's. Chunks are also a resource template,
``groundkit://chunks/{collection}/{chunk_id}``. A refused request is a tool error carrying the
library's message.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

from mcp.server import MCPServer
from mcp.server.mcpserver.exceptions import ResourceError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import BaseModel, Field, ValidationError

from groundkit import __version__
from groundkit_serve.errors import ServiceError
from groundkit_serve.models import FetchChunkRequest
from groundkit_serve.spec import CHUNK_URI, ToolSpec
from groundkit_serve.tools import Registry

__all__ = ["build_mcp_server"]

INSTRUCTIONS = (
    "groundkit searches indexed documents and returns passages with citations (source, "
    "0-based end-exclusive code-point offsets, line span) that can be re-checked against the "
    "source: verified, drifted or unresolvable. Cite sources by these fields."
)
READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)


def _tool_function(registry: Registry, spec: ToolSpec) -> Callable[..., Awaitable[BaseModel]]:
    """An async function whose keyword parameters are the request model's fields."""
    parameters = []
    for name, info in spec.request.model_fields.items():
        annotation: Any = Annotated[
            (info.annotation, *info.metadata, Field(description=info.description))
        ]
        default = inspect.Parameter.empty if info.is_required() else info.default
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )

    async def tool(**arguments: Any) -> CallToolResult:
        try:
            request = spec.request(**arguments)
        except ValidationError as exc:
            raise ToolError(str(exc)) from None
        try:
            reply = await registry.call(spec, request)
        except ServiceError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None
        # The text block is compact JSON (the SDK's default indents it, doubling its size).
        text = TextContent(type="text", text=reply.model_dump_json())
        return CallToolResult(content=[text], structured_content=reply.model_dump(mode="json"))

    tool.__name__ = spec.name
    tool.__doc__ = spec.description
    setattr(tool, "__signature__", inspect.Signature(parameters, return_annotation=spec.reply))  # noqa: B010
    return tool


def build_mcp_server(registry: Registry) -> MCPServer[Any]:
    """An MCPServer serving the registry's tools (or the two-tool connector shape)."""
    server: MCPServer[Any] = MCPServer(
        "groundkit", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING"
    )
    specs = registry.connector_tools if registry.settings.connector else registry.tools
    for spec in specs.values():
        server.add_tool(
            _tool_function(registry, spec),
            name=spec.name,
            title=spec.title,
            description=spec.description,
            annotations=READ_ONLY,
            structured_output=True,
        )

    @server.resource(
        CHUNK_URI,
        name="chunk",
        title="A chunk with its citation",
        description="A chunk's text, citation and a fresh verdict, as JSON (the fetch_chunk reply)",
        mime_type="application/json",
    )
    async def chunk(collection: str, chunk_id: str) -> str:
        try:
            request = FetchChunkRequest(chunk_id=chunk_id, collection=collection)
            reply = await registry.call(registry.tools["fetch_chunk"], request)
        except ValidationError as exc:
            raise ResourceError(f"not a chunk address: {exc.error_count()} invalid parts") from None
        except ServiceError as exc:
            raise ResourceError(f"{exc.code}: {exc.message}") from None
        return reply.model_dump_json()

    return server
