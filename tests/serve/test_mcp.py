"""MCP over a real server process, driven by the SDK's own client: stdio and streamable HTTP."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Awaitable, Callable
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession
from mcp.client.stdio import StdioServerParameters, stdio_client
from mcp.client.streamable_http import streamable_http_client
from serving import Server, start_server

import groundkit

pytestmark = pytest.mark.subprocess
TOOLS = {"search", "fetch_chunk", "verify", "list_collections", "status"}
LIMIT_S = 90


def run_session(
    transport: AbstractAsyncContextManager[Any], body: Callable[[ClientSession], Awaitable[None]]
) -> None:
    async def main() -> None:
        with anyio.fail_after(LIMIT_S):
            async with transport as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                await body(session)

    anyio.run(main)


def stdio(index_dir: Path, *extra: str) -> AbstractAsyncContextManager[Any]:
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "groundkit", "serve", "--stdio", "--index-dir", str(index_dir), *extra],
        env={k: v for k, v in os.environ.items() if k in {"PYTHONPATH", "PATH", "HOME"}},
    )
    return stdio_client(params, errlog=sys.stderr)


def library_results(index_dir: Path) -> list[dict[str, Any]]:
    with groundkit.Searcher.open(index_dir) as retriever:
        response = retriever.search("how do I report a leak", top_k=3)
    return [result.to_dict() for result in response.results]


async def exercise_registry(
    session: ClientSession, expected: list[dict[str, Any]], max_top_k: int
) -> None:
    tools = {tool.name: tool for tool in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    # the schema declares the limit the server enforces (--max-top-k), and no other argument
    assert tools["search"].input_schema["properties"]["top_k"]["maximum"] == max_top_k
    assert tools["search"].input_schema["additionalProperties"] is False
    assert "results" in (tools["search"].output_schema or {})["properties"]
    assert tools["search"].annotations is not None and tools["search"].annotations.read_only_hint

    found = await session.call_tool("search", {"query": "how do I report a leak", "top_k": 3,
                                               "verify": True})  # fmt: skip
    assert not found.is_error, found.content
    reply = found.structured_content
    assert reply is not None and len(reply["results"]) == 3
    for got, want in zip(reply["results"], expected, strict=True):
        assert {k: got[k] for k in want} == want  # the library's results, field for field
    first = reply["results"][0]
    for key in ("source", "start_offset", "end_offset", "start_line", "end_line", "chunk_id"):
        assert key in first
    assert {r["verification"]["verdict"] for r in reply["results"]} == {"verified"}

    filtered = await session.call_tool(
        "search", {"query": "bill", "where": {"source_prefix": "billing/"}}
    )
    assert filtered.structured_content is not None and filtered.structured_content["results"]
    assert all(r["source"].startswith("billing/") for r in filtered.structured_content["results"])

    fetched = await session.call_tool("fetch_chunk", {"chunk_id": first["chunk_id"]})
    assert fetched.structured_content is not None
    assert fetched.structured_content["content"] == first["content"]
    assert fetched.structured_content["verification"]["verdict"] == "verified"

    templates = (await session.list_resource_templates()).resource_templates
    assert [t.uri_template for t in templates] == ["groundkit://chunks/{collection}/{chunk_id}"]
    resource = await session.read_resource(f"groundkit://chunks/default/{first['chunk_id']}")
    text = resource.contents[0].text  # type: ignore[union-attr]
    assert json.loads(text)["start_offset"] == first["start_offset"]

    missing = await session.call_tool("search", {"query": "leak", "collection": "nope"})
    assert missing.is_error
    assert "groundkit ingest" in missing.content[0].text  # type: ignore[union-attr]
    broken = await session.call_tool("search", {"query": "leak", "collection": "broken"})
    assert broken.is_error and "damaged" in broken.content[0].text  # type: ignore[union-attr]
    again = await session.call_tool("search", {"query": "bill", "collection": "billing"})
    assert not again.is_error  # the others keep serving
    listed = await session.call_tool("list_collections", {})
    assert listed.structured_content is not None
    names = {c["name"]: c["ok"] for c in listed.structured_content["collections"]}
    assert names == {
        "default": True,
        "billing": True,
        "dense": True,
        "pages": True,
        "broken": False,
    }
    whole = await session.call_tool("verify", {})
    assert whole.structured_content is not None and whole.structured_content["drifted"] == 0


def test_stdio_serves_the_registry(index_dir: Path) -> None:
    expected = library_results(index_dir)
    run_session(stdio(index_dir), lambda session: exercise_registry(session, expected, 50))


def test_streamable_http_serves_the_registry(server: Server, index_dir: Path) -> None:
    expected = library_results(index_dir)
    transport = streamable_http_client(server.url + "/mcp")
    run_session(transport, lambda session: exercise_registry(session, expected, 20))


def test_the_two_tool_connector_shape(index_dir: Path) -> None:
    async def body(session: ClientSession) -> None:
        tools = {tool.name for tool in (await session.list_tools()).tools}
        assert tools == {"search", "fetch"}
        found = await session.call_tool("search", {"query": "report a leak"})
        assert found.structured_content is not None
        hits = found.structured_content["results"]
        assert hits and {"id", "title", "url"} <= set(hits[0])
        document = await session.call_tool("fetch", {"id": hits[0]["id"]})
        assert document.structured_content is not None
        assert document.structured_content["text"]
        metadata = document.structured_content["metadata"]
        assert metadata["verification"]["verdict"] == "verified"
        assert {"source", "start_offset", "end_offset"} <= set(metadata)

    run_session(stdio(index_dir, "--connector"), body)


def test_an_http_session_started_with_a_token_needs_it(index_dir: Path, tmp_path: Path) -> None:
    import httpx2

    token = "t" * 24
    server = start_server("--index-dir", str(index_dir), env={"GROUNDKIT_SERVE_TOKEN": token})

    async def body(session: ClientSession) -> None:
        status = await session.call_tool("status", {})
        assert status.structured_content is not None

    try:
        client = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
        run_session(streamable_http_client(server.url + "/mcp", http_client=client), body)
        refused = httpx2.post(server.url + "/mcp", json={}, timeout=30)
        assert refused.status_code == 401
    finally:
        server.stop()
