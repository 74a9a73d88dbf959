"""The registry served over MCP (stdio and streamable HTTP) with the official SDK's MCPServer.

Each tool's input schema is its request model's, and the arguments are validated by that model
as REST's bodies are (one validator, adr/0057); its output schema is the reply model's. Chunks
are also a resource template, ``groundkit://chunks/{collection}/{chunk_id}``. A refused request
is a tool error carrying the library's message.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import anyio.from_thread
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp.server.mcpserver.utilities.func_metadata import ArgModelBase
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import ConfigDict, ValidationError

from groundkit import __version__
from groundkit_serve.models import FetchChunkRequest
from groundkit_serve.service_errors import ServiceError, validation_message
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


class _Untouched(ArgModelBase):
    """The SDK's argument model, made a pass-through: the SDK's own (lax) validation would
    take "5" for 5 and "yes" for true, and parse JSON inside strings; the arguments go
    untouched to the request model that REST validates with (one validator, adr/0057)."""

    model_config = ConfigDict(extra="allow")

    def model_dump_one_level(self) -> dict[str, Any]:
        return dict(self.model_extra or {})


def input_schema(spec: ToolSpec, max_top_k: int) -> dict[str, Any]:
    """The tool's input schema: its request model's, ``top_k`` capped at ``--max-top-k``."""
    schema = spec.request.model_json_schema()
    top_k = schema.get("properties", {}).get("top_k")
    if top_k is not None and "maximum" in top_k:
        top_k["maximum"] = max_top_k
    schema["additionalProperties"] = False
    return schema


def _tool_function(registry: Registry, spec: ToolSpec) -> Callable[..., Awaitable[CallToolResult]]:
    """An async function taking the raw arguments (validated by the request model, as REST's
    are) and the SDK's ``Context`` for progress."""

    async def tool(ctx: Context[Any] | None = None, **arguments: Any) -> CallToolResult:
        try:
            request = spec.request.model_validate(arguments)
        except ValidationError as exc:
            # REST's 422 body, word for word: "invalid: invalid request: FIELD: why" (adr/0057)
            raise ToolError(f"invalid: {validation_message(exc.errors())}") from None
        try:
            reply = await registry.call(spec, request, progress=_progress_to(ctx))
        except ServiceError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None
        # The text block is compact JSON (the SDK's default indents it, doubling its size).
        text = TextContent(type="text", text=reply.model_dump_json())
        return CallToolResult(content=[text], structured_content=reply.model_dump(mode="json"))

    tool.__name__ = spec.name
    tool.__doc__ = spec.description
    tool.__annotations__ = {"ctx": Context, "return": spec.reply}  # the SDK finds ctx by type
    parameters = [
        inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context, default=None)
    ]
    setattr(tool, "__signature__", inspect.Signature(parameters, return_annotation=spec.reply))  # noqa: B010
    return tool


def _progress_to(ctx: Context[Any] | None) -> Callable[[int, int], None] | None:
    """A worker thread's progress, sent as MCP ``notifications/progress`` on the request's
    event loop (the SDK sends it only to a client that gave a progress token)."""
    if ctx is None:
        return None

    def report(done: int, total: int) -> None:
        with contextlib.suppress(Exception):  # a client gone mid-call: the work ends anyway
            anyio.from_thread.run(ctx.report_progress, float(done), float(total))

    return report


def _validate_as_rest(server: MCPServer[Any], spec: ToolSpec, max_top_k: int) -> None:
    """Hand the arguments to the request model untouched and publish its schema (the SDK has
    no public door to its tools)."""
    tool = server._tool_manager.get_tool(spec.name)
    if tool is None:
        return
    tool.fn_metadata.arg_model = _Untouched
    tool.parameters = input_schema(spec, max_top_k)


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
        _validate_as_rest(server, spec, registry.settings.max_top_k)

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
            raise ResourceNotFoundError(
                f"not a chunk address: {exc.error_count()} invalid parts"
            ) from None
        except ServiceError as exc:
            if exc.status == 404:  # the protocol's not-found, not an internal error
                raise ResourceNotFoundError(f"{exc.code}: {exc.message}") from None
            raise ResourceError(f"{exc.code}: {exc.message}") from None
        return reply.model_dump_json()

    return server
