"""The registry served over MCP (stdio and streamable HTTP) with the official SDK's MCPServer.

Each tool's parameters are its pydantic request model's fields, so the tool's input schema is
the model's; its output schema is the reply model's. Chunks are also a resource template,
``groundkit://chunks/{collection}/{chunk_id}``. A refused request is a tool error carrying the
library's message.
"""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import Awaitable, Callable
from typing import Annotated, Any

import anyio.from_thread
from annotated_types import Le
from mcp.server import MCPServer
from mcp.server.mcpserver import Context
from mcp.server.mcpserver.exceptions import ResourceError, ResourceNotFoundError, ToolError
from mcp_types import CallToolResult, TextContent, ToolAnnotations
from pydantic import Field, ValidationError

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


def _tool_function(registry: Registry, spec: ToolSpec) -> Callable[..., Awaitable[CallToolResult]]:
    """An async function whose keyword parameters are the request model's fields (``top_k``
    capped at the server's ``--max-top-k``), and the SDK's ``Context`` for progress."""
    parameters = []
    for name, info in spec.request.model_fields.items():
        metadata = list(info.metadata)
        if name == "top_k":  # declare the limit the server enforces, not the model's ceiling
            metadata = [m for m in metadata if not hasattr(m, "le")]
            metadata.append(Le(registry.settings.max_top_k))
        annotation: Any = Annotated[
            (info.annotation, *metadata, Field(description=info.description))
        ]
        default = inspect.Parameter.empty if info.is_required() else info.default
        parameters.append(
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, annotation=annotation, default=default
            )
        )

    parameters.append(
        inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context, default=None)
    )

    async def tool(ctx: Context[Any] | None = None, **arguments: Any) -> CallToolResult:
        try:
            request = spec.request(**arguments)
        except ValidationError as exc:
            raise ToolError(validation_message(exc.errors())) from None
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


def _refuse_unknown_arguments(server: MCPServer[Any], name: str) -> None:
    """Declare ``additionalProperties: false`` and make the SDK's own argument model refuse an
    unknown argument by name, instead of dropping it silently."""
    tool = server._tool_manager.get_tool(name)  # the SDK has no public door to its tools
    if tool is None:
        return
    model = tool.fn_metadata.arg_model
    model.model_config["extra"] = "forbid"
    model.model_rebuild(force=True)
    tool.parameters["additionalProperties"] = False


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
        _refuse_unknown_arguments(server, spec.name)

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
