"""Logs: plain warnings by default; with ``--log-json`` one JSON object a line on stderr.

Every library's records (uvicorn's, the MCP SDK's, Python's warnings) go through the root
logger's one handler and its formatter, so no plain line slips between the JSON ones; a
server-level record of uvicorn's (a malformed request, refused before any route) gets a request
id of its own (adr/0056). Only allow-listed fields are written (tool, status, timings,
collection, generation, counts, request id, transport, method and path): never the query
string, the query or document text. The allowlist is held by a test.
"""

from __future__ import annotations

import json
import logging
import secrets
import sys
import time

__all__ = ["ALLOWED_FIELDS", "JsonFormatter", "configure_logging"]

ALLOWED_FIELDS = frozenset(
    {
        "tool",
        "status",
        "duration_ms",
        "collection",
        "generation",
        "mode",
        "top_k",
        "results",
        "error",
        "request_id",
        "transport",
        "method",
        "path",
        "url",
        "index_dir",
        "processes",
    }
)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, event, and the allowed extra fields."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(record.created))
            + f".{int(record.msecs):03d}Z",
            "level": record.levelname.lower(),
            "logger": record.name,
            "event": record.getMessage(),
            "pid": record.process,  # which of --processes wrote it
        }
        for name in sorted(ALLOWED_FIELDS):
            if name in record.__dict__:
                entry[name] = record.__dict__[name]
        return json.dumps(entry, ensure_ascii=False, default=str)


class _RequestIds(logging.Filter):
    """A uvicorn warning about one connection (malformed HTTP, an invalid request) has no
    request of the app's to name: it gets an id of its own, as every request does."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.name.startswith("uvicorn") and not hasattr(record, "request_id"):
            record.request_id = secrets.token_hex(8)
            record.transport = "http"
        return True


def configure_logging(json_logs: bool) -> None:
    """One handler on the root logger, on stderr: JSON lines (``groundkit.serve`` from INFO,
    every other library from WARNING), or plain text from WARNING. uvicorn must be started
    with ``log_config=None`` so that it adds no handler of its own."""
    handler = logging.StreamHandler(sys.stderr)
    handler.addFilter(_RequestIds())
    if json_logs:
        handler.setFormatter(JsonFormatter())
    else:
        handler.setFormatter(logging.Formatter("groundkit serve: %(levelname)s %(message)s"))
    root = logging.getLogger()
    for old in list(root.handlers):
        root.removeHandler(old)
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in ("uvicorn", "uvicorn.error", "uvicorn.access", "mcp", "sse_starlette"):
        library = logging.getLogger(name)
        for old in list(library.handlers):
            library.removeHandler(old)
        library.setLevel(logging.NOTSET)
        library.propagate = True
    logger = logging.getLogger("groundkit.serve")
    logger.handlers.clear()
    logger.setLevel(logging.INFO if json_logs else logging.WARNING)
    logger.propagate = True
    logging.captureWarnings(True)  # Python's warnings too, through the same handler
