"""Putting it together: the HTTP app (REST + MCP at ``/mcp`` behind the guard) and the runners."""

from __future__ import annotations

import asyncio
import errno
import logging
import math
import socket
import sys
from collections.abc import Callable
from types import FrameType
from typing import Any

import anyio
import uvicorn
from mcp.server import MCPServer
from mcp.server.transport_security import TransportSecuritySettings
from sse_starlette.sse import AppStatus
from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp

from groundkit import ConfigurationError, GroundkitError, Reranker, Searcher
from groundkit_serve.access import AccessLog
from groundkit_serve.logs import JsonFormatter, configure_logging
from groundkit_serve.mcp_server import build_mcp_server
from groundkit_serve.processes import serve_forked
from groundkit_serve.rest import rest_routes
from groundkit_serve.runtime import Runtime
from groundkit_serve.security import Guard
from groundkit_serve.settings import ServeSettings
from groundkit_serve.tools import Registry

__all__ = ["PortInUseError", "announce", "create_app", "listen", "run_http", "run_stdio"]

log = logging.getLogger("groundkit.serve")
_SETTLE_S = 0.5
"""After the last call in flight returns: the time its answer has to be written out."""


def _transport_security(settings: ServeSettings) -> TransportSecuritySettings:
    """The SDK's own Host/Origin check on /mcp, with the same names as the guard."""
    hosts = [f"[{h}]" if ":" in h else h for h in settings.host_patterns()]
    origins = list(settings.origin_patterns())
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True,
        allowed_hosts=[*hosts, *(f"{h}:*" for h in hosts)],
        allowed_origins=[*origins, *(f"{o}:*" for o in origins)],
    )


def _parts(
    settings: ServeSettings, reranker: Reranker | None, sharded: tuple[Searcher, str] | None
) -> tuple[Registry, MCPServer[Any]]:
    search, name = (None, "") if sharded is None else sharded
    registry = Registry(Runtime(settings, reranker=reranker), sharded=search, sharded_name=name)
    return registry, build_mcp_server(registry)


def create_app(
    settings: ServeSettings,
    *,
    reranker: Reranker | None = None,
    sharded: tuple[Searcher, str] | None = None,
) -> tuple[ASGIApp, Registry]:
    """The ASGI app: REST under /v1, MCP streamable HTTP at /mcp, all behind ``Guard``;
    ``sharded``: a sharded search held elsewhere (Ray Serve's) and its collection's name,
    searched by ``search`` (REST ``/v1/search``) with that name as ``collection``."""
    registry, server = _parts(settings, reranker, sharded)
    for route in rest_routes(registry):
        server.custom_route(route.path, methods=sorted(route.methods or ()))(route.endpoint)
    app = server.streamable_http_app(
        streamable_http_path="/mcp",
        max_request_body_size=settings.max_body_bytes,
        transport_security=_transport_security(settings),
        host=settings.host,
    )
    _json_errors(app)
    return AccessLog(Guard(app, settings), registry.count_internal_error), registry


_HTTP_CODES = {404: "not_found", 405: "method_not_allowed"}


def _json_errors(app: Starlette) -> None:
    """Starlette's own 404, 405 and 500 in the service's JSON error shape, not text/plain."""

    async def http_error(request: Request, exc: Exception) -> Response:
        status = exc.status_code if isinstance(exc, HTTPException) else 500
        headers = exc.headers if isinstance(exc, HTTPException) else None
        code = _HTTP_CODES.get(status, "invalid" if status < 500 else "internal")
        detail = exc.detail if isinstance(exc, HTTPException) else "internal error"
        body = {"error": code, "message": f"{request.method} {request.url.path}: {detail}"}
        return JSONResponse({**body, "subject": None}, status_code=status, headers=headers)

    async def internal_error(request: Request, exc: Exception) -> Response:
        body = {"error": "internal", "message": "the server failed to answer this request"}
        return JSONResponse({**body, "subject": None}, status_code=500)

    app.add_exception_handler(HTTPException, http_error)
    app.add_exception_handler(Exception, internal_error)


class _Server(uvicorn.Server):
    """Says where it listens once the socket is bound (port 0 picks a free one), and on
    SIGTERM or Ctrl-C lets the tool calls in flight answer before the event streams close.

    sse-starlette (under the MCP SDK's streamable HTTP) ends every event stream the moment
    uvicorn is told to exit, and with it the answer of an MCP call still running. Its automatic
    drain is turned off here; the streams are ended once no call is in flight (or ``--grace``
    has passed), after which uvicorn's own graceful shutdown finishes (adr/0040)."""

    def __init__(
        self,
        config: uvicorn.Config,
        settings: ServeSettings,
        busy: Callable[[], int],
        stop: Callable[[], None],
        *,
        announce: bool,
    ) -> None:
        super().__init__(config)
        self._settings = settings
        self._busy = busy
        self._stop = stop
        self._announce = announce
        self._loop: asyncio.AbstractEventLoop | None = None
        self._ending: asyncio.Task[None] | None = None
        AppStatus.enable_automatic_graceful_drain = False  # ended by _end_streams instead

    def handle_exit(self, sig: int, frame: FrameType | None) -> None:
        super().handle_exit(sig, frame)
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._schedule_end)

    def _schedule_end(self) -> None:
        if self._ending is None and self._loop is not None:
            self._ending = self._loop.create_task(self._end_streams())

    async def _end_streams(self) -> None:
        """End the event streams once no tool call is in flight; at the grace's end, the calls
        still running are stopped first, each answered 503 ``stopping`` (REST) or with that
        tool error (MCP), so no client waits on a server that has gone (adr/0056)."""
        with anyio.move_on_after(self._settings.grace_s) as grace:
            while self._busy():
                await anyio.sleep(0.05)
            await anyio.sleep(_SETTLE_S)  # the last answer is written before its stream ends
        if grace.cancelled_caught:
            self._stop()
            await anyio.sleep(_SETTLE_S)  # the stopped calls' answers are written out
        AppStatus.should_exit = True

    async def startup(self, sockets: Any = None) -> None:
        self._loop = asyncio.get_running_loop()
        await super().startup(sockets)
        if not self._announce:  # one of --processes: the parent said where it listens
            return
        port = self._settings.port
        for server in self.servers:
            for sock in server.sockets:
                port = sock.getsockname()[1]
        announce(self._settings, port)


def announce(settings: ServeSettings, port: int) -> None:
    """The listening line on stderr (one JSON object under --log-json), said once."""
    host = settings.host
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}"
    if settings.json_logs:  # one JSON object, like every other line
        record = logging.LogRecord(log.name, logging.INFO, __file__, 0, "listening on %s",
                                   (url,), None)  # fmt: skip
        record.url, record.index_dir = url, str(settings.index_dir)
        record.processes = settings.processes
        print(JsonFormatter().format(record), file=sys.stderr, flush=True)
        return
    print(
        f"groundkit serve: listening on {url} (REST /v1, MCP /mcp, OpenAPI /openapi.json); "
        f"index {settings.index_dir}; {settings.processes} process"
        f"{'es' if settings.processes > 1 else ''}",
        file=sys.stderr,
        flush=True,
    )


class PortInUseError(GroundkitError):
    """The port asked for is taken by another process (its own exit code, adr/0056)."""


def listen(settings: ServeSettings) -> socket.socket:
    """The listening socket, bound here rather than by uvicorn: a taken port is one typed
    error naming the flag, not uvicorn's ``[Errno 98]`` line and its exit status."""
    host = settings.host.strip("[]")
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    try:
        return socket.create_server((host, settings.port), family=family, backlog=2048)
    except OSError as exc:
        if exc.errno == errno.EADDRINUSE:
            raise PortInUseError(
                f"port {settings.port} is in use; pass --port (0 picks a free one)",
                subject=str(settings.port),
            ) from None
        raise ConfigurationError(
            f"cannot listen on {settings.host} port {settings.port}: {exc.strerror or exc}",
            subject=settings.host,
        ) from None


def _preload(registry: Registry, settings: ServeSettings) -> None:
    """Open the default collection in the background at start: its vector store and model are
    loaded before the first query asks for them."""
    registry.runtime.preload_soon(settings.collection)


def run_http(
    settings: ServeSettings,
    *,
    reranker: Reranker | None = None,
    sharded: tuple[Searcher, str] | None = None,
) -> None:
    """Serve REST and MCP over HTTP until interrupted (refuses an unsafe bind or a missing
    index folder first): in this process, or in ``settings.processes`` forked ones sharing
    one listening socket, each with its own read views (adr/0057)."""
    settings.require_safe_bind()
    settings.require_index_dir()
    configure_logging(settings.json_logs)
    sock = listen(settings)  # a busy port is PortInUseError, with N processes too
    if settings.processes == 1:
        _serve(settings, reranker, sharded, sock, announce_here=True)
        return
    announce(settings, sock.getsockname()[1])
    serve_forked(sock, settings.processes, lambda s: _serve(settings, reranker, sharded, s))


def _serve(
    settings: ServeSettings,
    reranker: Reranker | None,
    sharded: tuple[Searcher, str] | None,
    sock: socket.socket,
    *,
    announce_here: bool = False,
) -> int:
    """One server process: its app, runtime and read views, on ``sock`` (the parent's bind);
    ``announce_here``: the only process, it says where it listens once it has started."""
    app, registry = create_app(settings, reranker=reranker, sharded=sharded)
    _preload(registry, settings)
    config = uvicorn.Config(
        app,
        host=settings.host,
        port=settings.port,
        log_config=None,  # uvicorn's records go through configure_logging's one handler
        log_level="warning",
        access_log=False,  # access lines would carry GET query strings: the query text
        server_header=False,
        # whole seconds, and past the grace: the calls it stopped have answered by then
        timeout_graceful_shutdown=math.ceil(settings.grace_s + 2 * _SETTLE_S) + 1,
    )
    try:
        _Server(
            config, settings, registry.in_flight, registry.stop_in_flight, announce=announce_here
        ).run(sockets=[sock])
    finally:
        sock.close()
        registry.runtime.close()
    return 0


def run_stdio(
    settings: ServeSettings,
    *,
    reranker: Reranker | None = None,
    sharded: tuple[Searcher, str] | None = None,
) -> None:
    """Serve MCP over stdin/stdout until the client closes it (logs go to stderr)."""
    settings.require_index_dir()
    configure_logging(settings.json_logs)
    registry, server = _parts(settings, reranker, sharded)
    _preload(registry, settings)
    try:
        server.run("stdio")
    finally:
        registry.runtime.close()
