"""groundkit's service: one read-only tool registry over MCP (stdio, streamable HTTP) and REST.

Installed with the pip extra ``serve`` (pydantic, the MCP SDK, Starlette, uvicorn):
``pip install ".[serve]"`` from a clone. The core never imports this package; ``groundkit
serve`` imports it on request. See adr/0020.
"""

from __future__ import annotations

from groundkit_serve.http_app import create_app, run_http, run_stdio
from groundkit_serve.runtime import Runtime
from groundkit_serve.service_errors import ServiceError
from groundkit_serve.settings import ServeSettings
from groundkit_serve.spec import ToolSpec
from groundkit_serve.tools import Registry

__all__ = [
    "Registry",
    "Runtime",
    "ServeSettings",
    "ServiceError",
    "ToolSpec",
    "create_app",
    "run_http",
    "run_stdio",
]
