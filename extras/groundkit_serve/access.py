"""The outermost HTTP layer: a request id on every request (the client's own
``X-Request-Id`` when it sends a plain one, echoed back), one log line for each (refused ones
too), and the service's JSON error shape for anything that fails unexpectedly.

The log line names the request id, the transport (``rest`` or ``mcp``), the method, the route's
path (never the query string, which holds the query text), the status and the time taken. An
exception that escapes the app is answered 500 in the JSON error shape, counted in the status
tool's errors, and logged by its type alone: no traceback reaches a client or the log. adr/0039.
"""

from __future__ import annotations

import logging
import re
import secrets
import time
from collections.abc import Callable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundkit_serve.security import reply_error

__all__ = ["AccessLog"]

log = logging.getLogger("groundkit.serve")
_CLIENT_ID = re.compile(rb"[A-Za-z0-9._:-]{1,128}")
"""A client's ``X-Request-Id`` that is echoed and logged as given; any other gets a fresh id."""


def request_id_of(scope: Scope) -> str:
    """The client's ``X-Request-Id`` when it is a plain token, else a fresh random one."""
    for name, value in scope.get("headers", ()):
        if name.lower() == b"x-request-id" and _CLIENT_ID.fullmatch(value.strip()):
            return str(value.strip().decode("ascii"))
    return secrets.token_hex(8)


def transport_of(path: str) -> str:
    """``mcp`` for the MCP endpoint, ``rest`` for everything else."""
    return "mcp" if path == "/mcp" or path.startswith("/mcp/") else "rest"


class AccessLog:
    """ASGI middleware: request id, access log line, and the last-resort 500."""

    def __init__(self, app: ASGIApp, on_internal_error: Callable[[], None]) -> None:
        self.app = app
        self.on_internal_error = on_internal_error

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        request_id = request_id_of(scope)
        started = time.perf_counter()
        status = 0

        async def send_with_id(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = [*message.get("headers", []), (b"x-request-id", request_id.encode())]
                message = {**message, "headers": headers}
            await send(message)

        try:
            await self.app(scope, receive, send_with_id)
        except Exception as exc:  # the last resort: the JSON shape, never a traceback
            self.on_internal_error()
            log.error(
                "internal error",
                extra={"request_id": request_id, "error": type(exc).__name__},
            )
            if status == 0:
                await reply_error(
                    send_with_id, 500, "internal", "the server failed to answer this request"
                )
        finally:
            log.info(
                "http request",
                extra={
                    "request_id": request_id,
                    "transport": transport_of(scope.get("path", "")),
                    "method": scope.get("method", ""),
                    "path": scope.get("path", ""),
                    "status": status,
                    "duration_ms": round((time.perf_counter() - started) * 1000, 3),
                },
            )
