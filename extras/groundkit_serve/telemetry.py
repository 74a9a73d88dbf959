"""OpenTelemetry spans: one per tool call, one per search stage, attributes from an allowlist.

Spans go through ``opentelemetry-api`` (which the MCP SDK depends on): without a configured
tracer provider they are no-ops; with one (``opentelemetry-instrument groundkit serve ...`` or
the host's own SDK set-up) they are exported like any other. Attributes pass the allowlist
below: ids, counts, timings, stage, never query or document text (held by a test).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from opentelemetry import trace
from opentelemetry.trace import Span

__all__ = ["ALLOWED_ATTRIBUTES", "record", "stage_spans", "tool_span"]

ALLOWED_ATTRIBUTES = frozenset(
    f"groundkit.{name}"
    for name in (
        "tool",
        "status",
        "error",
        "collection",
        "generation",
        "mode",
        "top_k",
        "results",
        "chunk_id",
        "stage",
        "duration_ms",
    )
)
_tracer = trace.get_tracer("groundkit.serve")
Value = str | int | float | bool


def _allowed(attributes: Mapping[str, object]) -> dict[str, Value]:
    """``groundkit.``-prefixed attributes on the allowlist with plain values; others dropped."""
    kept: dict[str, Value] = {}
    for name, value in attributes.items():
        key = f"groundkit.{name}"
        if key in ALLOWED_ATTRIBUTES and isinstance(value, str | int | float | bool):
            kept[key] = value
    return kept


@contextmanager
def tool_span(tool: str) -> Iterator[Span]:
    """The span of one tool call (current while it runs)."""
    with _tracer.start_as_current_span(
        f"groundkit {tool}",
        attributes=_allowed({"tool": tool}),
        record_exception=False,  # an exception event's message is not on the allowlist
    ) as span:
        yield span


def record(span: Span, **attributes: object) -> None:
    """Set attributes on ``span``, through the allowlist."""
    span.set_attributes(_allowed(attributes))


def stage_spans(timings_ms: Mapping[str, object], *, ended_ns: int | None = None) -> None:
    """Child spans of the current span for a search's stages, laid end to end so that the
    last ends at ``ended_ns`` (default now): the library reports durations, not instants."""
    stages = [
        (n, float(ms))
        for n, ms in timings_ms.items()
        if n != "total" and isinstance(ms, int | float)
    ]
    at = (time.time_ns() if ended_ns is None else ended_ns) - int(sum(ms for _, ms in stages) * 1e6)
    for name, ms in stages:
        end = at + int(ms * 1e6)
        span = _tracer.start_span(
            f"groundkit search.{name}",
            start_time=at,
            attributes=_allowed({"stage": name, "duration_ms": ms}),
        )
        span.end(end_time=end)
        at = end
