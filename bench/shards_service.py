"""shards_bench's comparison through the service: two ``groundkit serve`` processes on loopback.

One serves the single collection, the other the sharded one (the service opens the folder's
``shards.json`` as a sharded collection); every query goes to both over REST, and the answers
are compared on chunk ids and score bits, with each other and with the library's answer of
the single collection (JSON carries a float as its shortest repr, which reads back to the
same bits: the comparison with the library checks that). Bounded: each server must start
within ``START_S`` and each request answer within ``REQUEST_S``; both processes are stopped
(SIGTERM, then SIGKILL) whatever happens.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import httpx

import groundkit

START_S = 300.0
REQUEST_S = 120.0
Answer = list[tuple[str, str]]


@contextmanager
def served(index: Path, collection: str, *extra: str) -> Iterator[str]:
    """A ``groundkit serve --http`` process over ``collection``; yields its base URL."""
    command = [sys.executable, "-m", "groundkit", "serve", "--http", "--port", "0",
               "--index-dir", str(index), "--collection", collection,
               "--timeout", str(REQUEST_S), *extra]  # fmt: skip
    process = subprocess.Popen(
        command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    lines: list[str] = []
    url: list[str] = []
    ready = threading.Event()

    def pump() -> None:  # reads stderr to the end, so the server never blocks on it
        assert process.stderr is not None
        for raw in process.stderr:
            line = raw.decode("utf-8", "replace")
            lines.append(line)
            if "listening on " in line and not url:
                url.append(line.split("listening on ", 1)[1].split()[0])
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    try:
        if not ready.wait(START_S) or not url:
            raise SystemExit(f"groundkit serve ({collection}) did not start: {''.join(lines)}")
        yield url[0]
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=30)


def _rest(client: httpx.Client, url: str, path: str, body: dict[str, Any]) -> Answer:
    reply = client.post(url + path, json=body)
    if reply.status_code != 200:
        raise SystemExit(f"{url}{path}: {reply.status_code} {reply.text[:500]}")
    return [(r["chunk_id"], float(r["score"]).hex()) for r in reply.json()["results"]]


def _library(response: groundkit.SearchResponse) -> Answer:
    return [(r.chunk_id, r.score.hex()) for r in response.results]


def compare_service(
    index: Path, queries: list[str], k: int, where: groundkit.SearchFilter
) -> dict[str, Any]:
    """Every query (unfiltered, then filtered by ``where``'s source prefix) through both
    servers; counts of answers that differ, and the mean time of a request to each."""
    out: dict[str, Any] = {}
    with ExitStack() as stack:
        started = time.perf_counter()
        one_url = stack.enter_context(served(index, "one"))
        many_url = stack.enter_context(served(index, "many"))
        out["service_start_s"] = round(time.perf_counter() - started, 1)
        client = stack.enter_context(httpx.Client(timeout=REQUEST_S))
        one = stack.enter_context(groundkit.Searcher.open(index, "one"))
        filtered = {"where": {"source_prefix": where.source_prefix}}
        for label, extra in (("", {}), ("filtered_", filtered)):
            differ = differ_library = compared = 0
            seconds = {"one": 0.0, "many": 0.0}
            for query in queries:
                body = {"query": query, "top_k": k, "mode": "bm25", **extra}
                answers = {}
                for name, url in (("one", one_url), ("many", many_url)):
                    started = time.perf_counter()
                    answers[name] = _rest(client, url, "/v1/search", body)
                    seconds[name] += time.perf_counter() - started
                filtered = where if extra else None
                library = _library(one.search(query, k, "bm25", where=filtered))
                compared += len(library)
                differ += answers["one"] != answers["many"]
                differ_library += answers["many"] != library or answers["one"] != library
            out[f"service_{label}answers_differing"] = differ
            out[f"service_{label}answers_differing_from_library"] = differ_library
            out[f"service_{label}results_compared"] = compared
            if not label:  # the first pass includes each server's first open of its snapshot
                continue
            for name, total in seconds.items():
                out[f"service_request_ms_{name}"] = round(total * 1000 / len(queries), 3)
    return out


def compare_service_ray(index: Path, queries: list[str], k: int) -> dict[str, Any]:
    """Every query through ``groundkit serve --ray-collection many`` (REST ``/v1/search``
    with ``collection: many``: the service in front of one Ray Serve deployment per shard),
    against the library's single collection."""
    out: dict[str, Any] = {}
    with ExitStack() as stack:
        started = time.perf_counter()
        url = stack.enter_context(served(index, "one", "--ray-collection", "many"))
        out["service_ray_start_s"] = round(time.perf_counter() - started, 1)
        client = stack.enter_context(httpx.Client(timeout=REQUEST_S))
        one = stack.enter_context(groundkit.Searcher.open(index, "one"))
        differ = compared = 0
        seconds = 0.0
        for query in queries:
            body = {"query": query, "top_k": k, "mode": "bm25", "collection": "many"}
            started = time.perf_counter()
            answer = _rest(client, url, "/v1/search", body)
            seconds += time.perf_counter() - started
            library = _library(one.search(query, k, "bm25"))
            compared += len(library)
            differ += answer != library
        out["service_ray_answers_differing"] = differ
        out["service_ray_results_compared"] = compared
        out["service_ray_request_ms"] = round(seconds * 1000 / len(queries), 3)
    return out
