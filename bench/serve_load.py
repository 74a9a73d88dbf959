"""Load on ``groundkit serve``: N clients over REST and MCP streamable HTTP for a fixed time,
while an ingest adds documents to the collection they search.

    python bench/serve_load.py --files 25000 --clients 8 --seconds 30   # about 100k chunks
    python bench/serve_load.py --files 500 --clients 4 --seconds 10     # quick

Needs the serve extra and httpx (``pip install ".[serve]" httpx``). Everything runs on
127.0.0.1: one server process, one ingest process, the clients as threads of this one. Reported
per transport: requests, throughput, p50/p95/p99 latency, errors (must be 0), and the
generations seen (each response's own, which must never go backwards for one client and must
equal its metadata's). Nothing is asserted here; the exit status is 1 when a check fails.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import anyio
import httpx
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

import groundkit
from serve_common import run_and_report, start_ingest, start_server
from synthetic import queries, write_corpus

TOP_K = 10


@dataclass
class Tally:
    """What one transport's clients saw."""

    latencies_ms: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    generations: set[int] = field(default_factory=set)
    backwards: int = 0
    mismatched: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, started: float, reply: dict[str, Any] | None, error: str | None) -> None:
        elapsed = (time.perf_counter() - started) * 1000
        with self.lock:
            self.latencies_ms.append(elapsed)
            if error is not None or reply is None:
                self.errors.append(error or "no reply")
                return
            self.generations.add(reply["generation"])
            if reply["generation"] != reply["metadata"]["generation"]:
                self.mismatched += 1

    def summary(self, seconds: float) -> dict[str, Any]:
        ordered = sorted(self.latencies_ms)

        def pct(q: float) -> float:
            return round(ordered[min(len(ordered) - 1, int(q * len(ordered)))], 2) if ordered else 0

        return {
            "requests": len(ordered),
            "throughput_per_s": round(len(ordered) / seconds, 1),
            "p50_ms": pct(0.50),
            "p95_ms": pct(0.95),
            "p99_ms": pct(0.99),
            "errors": len(self.errors),
            "first_errors": self.errors[:3],
            "generations_seen": len(self.generations),
            "generation_range": [min(self.generations), max(self.generations)]
            if self.generations
            else None,
            "generation_went_backwards": self.backwards,
            "generation_mismatched_metadata": self.mismatched,
        }


def rest_client(url: str, texts: list[str], deadline: float, tally: Tally, offset: int) -> None:
    last = -1
    with httpx.Client(timeout=60) as client:
        n = offset
        while time.perf_counter() < deadline:
            query = texts[n % len(texts)]
            n += 1
            started = time.perf_counter()
            try:
                reply = client.get(url + "/v1/search", params={"q": query, "top_k": TOP_K})
            except httpx.HTTPError as exc:
                tally.record(started, None, repr(exc))
                continue
            if reply.status_code != 200:
                tally.record(started, None, f"{reply.status_code} {reply.text[:200]}")
                continue
            body = reply.json()
            tally.record(started, body, None)
            if body["generation"] < last:
                tally.backwards += 1
            last = body["generation"]


def mcp_client(url: str, texts: list[str], deadline: float, tally: Tally, offset: int) -> None:
    async def main() -> None:
        last = -1
        async with (
            streamable_http_client(url + "/mcp") as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            n = offset
            while time.perf_counter() < deadline:
                query = texts[n % len(texts)]
                n += 1
                started = time.perf_counter()
                try:
                    result = await session.call_tool("search", {"query": query, "top_k": TOP_K})
                except Exception as exc:  # a transport failure is an error of this run
                    tally.record(started, None, repr(exc))
                    continue
                if result.is_error or result.structured_content is None:
                    tally.record(started, None, str(result.content)[:200])
                    continue
                body = result.structured_content
                tally.record(started, body, None)
                if body["generation"] < last:
                    tally.backwards += 1
                last = body["generation"]

    anyio.run(main)


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    corpus, index, extra = workdir / "corpus", workdir / "index", workdir / "added"
    built = False
    if not (index / "default" / "collection.sqlite").is_file():
        started = time.perf_counter()
        write_corpus(corpus, args.files)
        groundkit.ingest(corpus, index_dir=index)
        built = True
        build_s = time.perf_counter() - started
    with groundkit.Searcher.open(index) as retriever:
        chunks_before = retriever.reader.chunk_count
        generation_before = retriever.generation
    load = os.getloadavg()  # the machine is shared: say how busy it was
    server, url = start_server(index, args.workers)
    texts = queries(500)
    try:
        httpx.get(url + "/v1/search", params={"q": texts[0]}, timeout=60).raise_for_status()
        rest, mcp = Tally(), Tally()
        ingest_deadline = time.time() + args.seconds
        ingest = (
            None
            if args.no_ingest
            else start_ingest(extra, index, ingest_deadline, args.batch, seed=1000)
        )
        deadline = time.perf_counter() + args.seconds
        threads = [
            threading.Thread(
                target=rest_client if i % 2 == 0 else mcp_client,
                args=(url, texts, deadline, rest if i % 2 == 0 else mcp, i * 61),
            )
            for i in range(args.clients)
        ]
        started = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        elapsed = time.perf_counter() - started
        added_out = "0" if ingest is None else ingest.communicate(timeout=600)[0]
        status = httpx.get(url + "/v1/status", timeout=60).json()
    finally:
        server.terminate()
        server.wait(timeout=30)
    with groundkit.Searcher.open(index) as retriever:
        chunks_after = retriever.reader.chunk_count
        generation_after = retriever.generation
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_at_start": [round(x, 2) for x in load],
        },
        "collection": {
            "files": args.files,
            "built_now_s": round(build_s, 1) if built else None,
            "chunks_before": chunks_before,
            "chunks_after": chunks_after,
            "generation_before": generation_before,
            "generation_after": generation_after,
        },
        "load": {
            "clients": args.clients,
            "rest_clients": len(threads[0::2]),
            "mcp_clients": len(threads[1::2]),
            "seconds": round(elapsed, 2),
            "top_k": TOP_K,
            "server_workers": args.workers,
        },
        "ingest_during_load": not args.no_ingest,
        "ingest_documents_added": int(added_out.strip() or 0),
        "server_refreshes": status["refreshes"],
        "rest": rest.summary(elapsed),
        "mcp_http": mcp.summary(elapsed),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=25_000, help="files (4 chunks each)")
    parser.add_argument("--clients", type=int, default=8, help="half REST, half MCP")
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--workers", type=int, default=4, help="the server's --workers")
    parser.add_argument("--batch", type=int, default=20, help="files per ingest during the load")
    parser.add_argument("--no-ingest", action="store_true", help="the same load, no ingest")
    parser.add_argument("--workdir", type=Path, default=None, help="keep (and reuse) data here")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    result = run_and_report(run, parser.parse_args())
    failed = any(
        result[t]["errors"] or result[t]["generation_went_backwards"]
        or result[t]["generation_mismatched_metadata"]
        for t in ("rest", "mcp_http")
    )  # fmt: skip
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
