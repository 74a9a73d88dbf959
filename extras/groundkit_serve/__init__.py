"""groundkit's service: one read-only tool registry over MCP (stdio, streamable HTTP) and REST.

Installed with the pip extra ``serve`` (pydantic, the MCP SDK, Starlette, uvicorn):
``pip install ".[serve]"`` from a clone. The core never imports this package: it loads the
plugin (``groundkit_serve.serve_plugin``: the ``groundkit serve`` command) through its entry point,
so each name here is imported on first use (adr/0020, adr/0053).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundkit_serve.http_app import create_app, run_http, run_stdio
    from groundkit_serve.runtime import Runtime
    from groundkit_serve.service_errors import ServiceError
    from groundkit_serve.settings import ServeSettings
    from groundkit_serve.spec import ToolSpec
    from groundkit_serve.tools import Registry

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit_serve.http_app": ("create_app", "run_http", "run_stdio"),
    "groundkit_serve.runtime": ("Runtime",),
    "groundkit_serve.service_errors": ("ServiceError",),
    "groundkit_serve.settings": ("ServeSettings",),
    "groundkit_serve.spec": ("ToolSpec",),
    "groundkit_serve.tools": ("Registry",),
}


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


if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name

    def __getattr__(name: str) -> object:
        """``name`` imported from its module on first use, then kept here (adr/0047)."""
        home = next((m for m, names in _HOMES.items() if name in names), None)
        if home is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = globals()[name] = getattr(import_module(home), name)
        return value

    def __dir__() -> list[str]:
        return sorted(set(globals()) | set(__all__))
