"""Logs: plain warnings by default; with ``--log-json`` one JSON object a line on stderr.

Only allow-listed fields are written (tool, status, timings, collection, generation, counts,
request id, transport, method and path): never the query string, the query or document text.
The allowlist is held by a test.
"""

from __future__ import annotations

import json
import logging
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


def configure_logging(json_logs: bool) -> None:
    """Route ``groundkit.serve`` records to stderr (INFO as JSON, or WARNING as text)."""
    logger = logging.getLogger("groundkit.serve")
    logger.handlers.clear()
    handler = logging.StreamHandler(sys.stderr)
    if json_logs:
        handler.setFormatter(JsonFormatter())
        logger.setLevel(logging.INFO)
    else:
        handler.setFormatter(logging.Formatter("groundkit serve: %(levelname)s %(message)s"))
        logger.setLevel(logging.WARNING)
    logger.addHandler(handler)
    logger.propagate = False
