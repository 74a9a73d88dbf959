"""The service's own CPU per request: a bm25 ``GET /v1/search`` and an MCP ``search`` tool call,
each against the library's search alone, in CPU time (``time.process_time``), in one process.

    python bench/serve_overhead.py                 # the sample corpus, 300 requests each
    python bench/serve_overhead.py --profile rest  # and cProfile's top entries of one surface

The REST request goes through the whole ASGI app (guard, access log, routing, validation,
the worker thread, the reply's JSON) by calling it as uvicorn would, without a socket; the MCP
call goes through the SDK's ``call_tool`` (its dispatch, our one validator, the registry).
Overhead = the surface's CPU per request minus the library's ``Searcher.search`` on the same
request. Needs the serve extra. CPU time, so a loaded machine skews it less than wall time.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import json
import pstats
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import groundkit
from groundkit_serve import ServeSettings
from groundkit_serve.http_app import create_app
from groundkit_serve.mcp_server import build_mcp_server

QUERY = "how do I report a leak"


async def rest_once(app: Any, query: bytes) -> int:
    """One GET through the ASGI app; its status."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET",
        "scheme": "http", "path": "/v1/search", "raw_path": b"/v1/search", "query_string": query,
        "root_path": "", "headers": [(b"host", b"127.0.0.1")], "client": ("127.0.0.1", 5),
        "server": ("127.0.0.1", 8765),
    }  # fmt: skip
    status = 0
    asked = 0

    async def receive() -> dict[str, Any]:
        nonlocal asked
        asked += 1
        if asked == 1:
            return {"type": "http.request", "body": b"", "more_body": False}
        await asyncio.Event().wait()  # as a server does: the next message would be a disconnect
        raise AssertionError("unreachable")

    async def send(message: dict[str, Any]) -> None:
        nonlocal status
        if message["type"] == "http.response.start":
            status = message["status"]

    await app(scope, receive, send)
    return status


def cpu_per_call(run: Any, count: int) -> float:
    """CPU milliseconds per call of ``run()`` (after 20 to warm up)."""
    for _ in range(20):
        run()
    started = time.process_time()
    for _ in range(count):
        run()
    return (time.process_time() - started) * 1000 / count


def cpu_per_await(loop: asyncio.AbstractEventLoop, call: Any, count: int) -> float:
    """CPU milliseconds per ``await call()``, all in one task, as a server's loop runs them
    (anyio's worker threads live as long as the loop's task: one per request otherwise)."""

    async def many() -> float:
        for _ in range(20):
            await call()
        started = time.process_time()
        for _ in range(count):
            await call()
        return (time.process_time() - started) * 1000 / count

    return loop.run_until_complete(many())


def best_of(rounds: int, measure: Any) -> float:
    """The least of ``rounds`` measurements: what other load on the machine added least to."""
    return min(measure() for _ in range(rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--count", type=int, default=300, help="requests a surface")
    parser.add_argument("--rounds", type=int, default=5, help="the least of this many rounds")
    parser.add_argument("--profile", choices=["rest", "mcp"], default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index"
        groundkit.ingest(groundkit.sample_corpus(), index_dir=index)
        settings = ServeSettings(index_dir=index)
        app, registry = create_app(settings)
        server = build_mcp_server(registry)
        loop = asyncio.new_event_loop()
        query = f"q={QUERY.replace(' ', '+')}&top_k=10&mode=bm25".encode()
        arguments = {"query": QUERY, "top_k": 10, "mode": "bm25"}

        async def rest() -> None:
            assert await rest_once(app, query) == 200

        async def mcp() -> None:
            await server.call_tool("search", arguments)

        with groundkit.Searcher.open(index) as retriever:
            request = groundkit.SearchRequest(QUERY, 10, "bm25")
            library = best_of(
                args.rounds, lambda: cpu_per_call(lambda: retriever.search(request), args.count)
            )
        surfaces = {"rest": rest, "mcp": mcp}
        result: dict[str, Any] = {"library_search_cpu_ms": round(library, 3)}
        for name, call in surfaces.items():
            total = best_of(args.rounds, lambda: cpu_per_await(loop, call, args.count))  # noqa: B023
            result[f"{name}_cpu_ms"] = round(total, 3)
            result[f"{name}_overhead_cpu_ms"] = round(total - library, 3)
        print(json.dumps(result, indent=2))
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            cpu_per_await(loop, surfaces[args.profile], args.count)
            profiler.disable()
            stats = pstats.Stats(profiler, stream=sys.stdout)
            stats.sort_stats("tottime").print_stats(25)
        registry.runtime.close()
        loop.close()


if __name__ == "__main__":
    main()
