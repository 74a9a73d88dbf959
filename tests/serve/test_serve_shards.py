"""Sharded collections served (issue 19): ``groundkit serve`` answers a sharded collection's
searches exactly as one collection over the same corpus, over REST and MCP, and fails closed
when a shard is missing or unreadable; a sharded search held elsewhere (Ray Serve's) is
searched by ``search`` with its name (adr/0057)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from serving import Server, start_server

import groundkit
from groundkit.retrieval import Searcher
from groundkit.shards import ingest_sharded
from groundkit_serve import Registry, Runtime, ServeSettings, ServiceError
from groundkit_serve.models import SearchArguments


def test_a_sharded_search_held_elsewhere_answers_as_one_collection(
    corpus: Path, index_dir: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    ingest_sharded(corpus, shards=3, index_dir=index, collection="many")
    with (
        Searcher.open(index, "many") as many,
        groundkit.Searcher.open(index_dir, "default") as one,
    ):
        registry = Registry(
            Runtime(ServeSettings(index_dir=index_dir)), sharded=many, sharded_name="many"
        )
        spec = registry.tools["search"]

        async def call(request: SearchArguments) -> dict:  # type: ignore[type-arg]
            request = request.model_copy(update={"collection": "many"})
            reply = await registry.call(spec, request)
            return reply.model_dump()

        try:
            for query in ["report a leak", "billing dispute", "boil water notice"]:
                reply = anyio.run(call, SearchArguments(query=query, top_k=5))
                want = one.search(query, 5)
                assert reply["collection"] == "many"
                assert [(r["chunk_id"], r["score"]) for r in reply["results"]] == [
                    (r.chunk_id, r.score) for r in want.results
                ]
            filtered = SearchArguments.model_validate(
                {"query": "bill", "top_k": 4, "where": {"source_prefix": "billing/"}}
            )
            reply = anyio.run(call, filtered)
            want = one.search("bill", 4, where=groundkit.SearchFilter(source_prefix="billing/"))
            assert reply["results"] and [r["chunk_id"] for r in reply["results"]] == [
                r.chunk_id for r in want.results
            ]
            checked = anyio.run(call, SearchArguments(query="leak", top_k=6, verify=True))
            want = one.search("leak", 6)
            assert checked["results"] and [r["verification"] for r in checked["results"]] == [
                {"verdict": one.verify(r).verdict, "reason": one.verify(r).reason}
                for r in want.results
            ]
            assert (
                anyio.run(call, SearchArguments(query="leak"))["results"][0]["verification"] is None
            )
            with pytest.raises(ServiceError, match="limit"):
                anyio.run(call, SearchArguments(query="leak", top_k=90))
        finally:
            registry.runtime.close()
    assert "search_sharded" not in registry.tools  # folded into search (adr/0057)


# --- a real `groundkit serve` process over sharded collections --------------------------------

TIMEOUT = httpx.Timeout(30.0)
QUERIES = ["how do I report a leak", "billing dispute", "boil water notice", "pay my bill"]


@pytest.fixture(scope="module")
def sharded_index(corpus: Path) -> Path:
    """``one`` (a collection) and ``many``, ``holed``, ``garbled`` (the same corpus in 3 shards;
    the last two get a shard removed or overwritten by the tests that use them)."""
    index = corpus.parent / "sharded-index"
    hashed = groundkit.get_embedder("hash")
    groundkit.ingest(corpus, index_dir=index, collection="one", embedder=hashed)
    for name in ("many", "holed", "garbled"):
        ingest_sharded(corpus, shards=3, index_dir=index, collection=name, embedder=hashed)
    return index


@pytest.fixture(scope="module")
def sharded_server(sharded_index: Path) -> Iterator[Server]:
    running = start_server("--index-dir", str(sharded_index), "--collection", "many")
    yield running
    running.stop()


def _post(server: Server, body: dict[str, Any]) -> httpx.Response:
    return httpx.post(server.url + "/v1/search", json=body, timeout=TIMEOUT)


def test_serve_shards_rest_answers_as_one_collection(
    sharded_server: Server, sharded_index: Path
) -> None:
    searches: list[dict[str, Any]] = [
        {"top_k": 5},
        {"top_k": 3, "mode": "dense"},
        {"top_k": 4, "mode": "hybrid", "hybrid": {"rrf_k": 30, "weights": [1.0, 0.5]}},
        {"top_k": 5, "where": {"source_prefix": "billing/"}},
        {"top_k": 3, "where": {"metadata": {"heading_path": "Payment methods"}}},
        {"top_k": 2, "score_threshold": 1.0},
    ]
    with groundkit.Searcher.open(sharded_index, "one") as one:
        for query in QUERIES:
            for options in searches:
                reply = _post(sharded_server, {"query": query, **options})  # default: many
                assert reply.status_code == 200, reply.text
                body = reply.json()
                where = None
                if "where" in options:
                    where = groundkit.SearchFilter(**options["where"])
                hybrid = None
                if "hybrid" in options:
                    fusion = options["hybrid"]
                    hybrid = groundkit.HybridOptions(
                        rrf_k=fusion["rrf_k"], weights=tuple(fusion["weights"])
                    )
                want = one.search(
                    query,
                    options["top_k"],
                    options.get("mode", "bm25"),
                    score_threshold=options.get("score_threshold"),
                    hybrid=hybrid,
                    where=where,
                ).to_dict()
                assert body["collection"] == "many"
                assert body["total_results"] == len(want["results"])
                for got, expected in zip(body["results"], want["results"], strict=True):
                    assert {k: got[k] for k in expected} == expected  # every field, every bit
    verified = _post(sharded_server, {"query": QUERIES[0], "top_k": 8, "verify": True}).json()
    assert len(verified["results"]) == 8
    assert {r["verification"]["verdict"] for r in verified["results"]} == {"verified"}


def test_serve_shards_fetch_verify_and_list(sharded_server: Server, sharded_index: Path) -> None:
    first = _post(sharded_server, {"query": QUERIES[0], "top_k": 1}).json()["results"][0]
    fetched = httpx.get(
        f"{sharded_server.url}/v1/chunks/{first['chunk_id']}", timeout=TIMEOUT
    ).json()
    assert fetched["content"] == first["content"]
    assert fetched["verification"]["verdict"] == "verified"
    cited = {key: first[key] for key in ("source", "start_offset", "end_offset")}
    checked = httpx.post(
        sharded_server.url + "/v1/verify",
        json={"citation": {**cited, "text": first["content"]}},
        timeout=TIMEOUT,
    ).json()
    assert (checked["checked"], checked["verified"]) == (1, 1), checked
    whole = httpx.post(sharded_server.url + "/v1/verify", json={}, timeout=60).json()
    with groundkit.Searcher.open(sharded_index, "one") as one:
        assert whole["checked"] == one.reader.chunk_count
    assert whole["verified"] == whole["checked"] and not whole["failures"]
    listed = httpx.get(sharded_server.url + "/v1/collections", timeout=TIMEOUT).json()
    info = {c["name"]: c for c in listed["collections"]}
    assert info["many"]["ok"] and info["many"]["shards"] == 3
    assert info["many"]["chunks"] == info["one"]["chunks"]


def test_serve_shards_mcp_answers_as_one_collection(
    sharded_server: Server, sharded_index: Path
) -> None:
    with groundkit.Searcher.open(sharded_index, "one") as one:
        want = [r.to_dict() for r in one.search(QUERIES[0], 4, "bm25").results]

    async def main() -> None:
        with anyio.fail_after(90):
            transport = streamable_http_client(sharded_server.url + "/mcp")
            async with transport as streams, ClientSession(streams[0], streams[1]) as session:
                await session.initialize()
                found = await session.call_tool(
                    "search", {"query": QUERIES[0], "top_k": 4, "mode": "bm25", "verify": True}
                )
                assert not found.is_error, found.content
                reply = found.structured_content
                assert reply is not None and reply["collection"] == "many"
                for got, expected in zip(reply["results"], want, strict=True):
                    assert {k: got[k] for k in expected} == expected
                assert {r["verification"]["verdict"] for r in reply["results"]} == {"verified"}
                whole = await session.call_tool("search", {"query": "leak", "collection": "holed"})
                assert not whole.is_error, whole.content
                (holed / "collection.sqlite").unlink()  # a shard goes while the server runs
                refused = await session.call_tool(
                    "search", {"query": "leak", "collection": "holed"}
                )
                assert refused.is_error
                assert "shard-0001" in refused.content[0].text  # type: ignore[union-attr]
                assert refused.structured_content is None or not refused.structured_content.get(
                    "results"
                )

    holed = sharded_index / "holed" / "shard-0001"
    anyio.run(main)


def test_serve_shards_missing_or_unreadable_shard_fails_closed(
    sharded_server: Server, sharded_index: Path
) -> None:
    garbled = sharded_index / "garbled" / "shard-0002" / "collection.sqlite"
    body = {"query": QUERIES[0], "collection": "garbled", "top_k": 5}
    garbled.write_bytes(b"this is not a SQLite database" * 100)
    (sharded_index / "holed" / "shard-0001" / "collection.sqlite").unlink(missing_ok=True)
    fresh = start_server("--index-dir", str(sharded_index))
    try:
        reply = _post(fresh, body)
        assert reply.status_code == 503, reply.text
        error = reply.json()
        assert error["error"] == "collection_unavailable" and "results" not in error
        holed = _post(fresh, {**body, "collection": "holed"})
        assert holed.status_code == 503, holed.text
        assert "shard-0001" in holed.json()["message"]
        assert "groundkit shard build" in holed.json()["message"]  # actionable
        listed = httpx.get(fresh.url + "/v1/collections", timeout=TIMEOUT).json()
        info = {c["name"]: c for c in listed["collections"]}
        assert not info["holed"]["ok"] and "shard-0001" in info["holed"]["error"]
        assert _post(fresh, {**body, "collection": "many"}).status_code == 200  # others serve
    finally:
        fresh.stop()
