"""OpenTelemetry spans of tool calls and search stages carry only allow-listed attributes."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

from groundkit_serve import Registry, Runtime, ServeSettings, ServiceError
from groundkit_serve.models import FetchChunkRequest, SearchArguments
from groundkit_serve.telemetry import ALLOWED_ATTRIBUTES


def test_spans_hold_ids_counts_and_timings_never_text(index_dir: Path) -> None:
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    registry = Registry(Runtime(ServeSettings(index_dir=index_dir)))
    query = "zebraquokka marker version"

    async def calls() -> str:
        reply = await registry.call(registry.tools["search"], SearchArguments(query=query, top_k=3))
        chunk_id: str = reply.model_dump()["results"][0]["chunk_id"]
        await registry.call(registry.tools["fetch_chunk"], FetchChunkRequest(chunk_id=chunk_id))
        with pytest.raises(ServiceError):
            await registry.call(
                registry.tools["search"], SearchArguments(query=query, collection="nope")
            )
        return chunk_id

    try:
        chunk_id = anyio.run(calls)
    finally:
        registry.runtime.close()
    spans = exporter.get_finished_spans()
    names = [span.name for span in spans]
    assert names.count("groundkit search") == 2 and "groundkit fetch_chunk" in names
    assert {"groundkit search.bm25", "groundkit search.join"} <= set(names)
    for span in spans:
        attributes = dict(span.attributes or {})
        assert set(attributes) <= ALLOWED_ATTRIBUTES, span.name
        for value in attributes.values():
            assert "zebraquokka" not in str(value) and "marker" not in str(value)
        assert not span.events  # no exception events: their messages are not allow-listed
    searched, _, failed = (
        s for s in spans if s.name.startswith("groundkit ") and "." not in s.name
    )
    assert searched.attributes is not None and failed.attributes is not None
    assert searched.attributes["groundkit.results"] == 3
    assert searched.attributes["groundkit.status"] == 200
    assert isinstance(searched.attributes["groundkit.generation"], int)
    assert failed.attributes["groundkit.status"] == 404
    stages = [s for s in spans if s.name.startswith("groundkit search.")]
    assert all(s.parent is not None and s.parent.span_id == searched.context.span_id
               for s in stages[:2])  # fmt: skip
    fetched = next(s for s in spans if s.name == "groundkit fetch_chunk")
    assert fetched.attributes is not None and fetched.attributes["groundkit.chunk_id"] == chunk_id
