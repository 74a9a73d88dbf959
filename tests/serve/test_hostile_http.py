"""The HTTP surface under hostile and careless clients (issue 29: items 1, 2, 7, 9): every
refusal in the JSON error shape, nothing read past the body cap, no 500 from a malformed
parameter, a valid and typed OpenAPI document, probes, logs of every request."""

from __future__ import annotations

import asyncio
import json
import logging
import socket
import subprocess
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from openapi_spec_validator import validate
from serving import Server, serve_command, start_server, wait_for

from groundkit_serve.access import AccessLog
from groundkit_serve.logs import JsonFormatter
from groundkit_serve.security import Guard
from groundkit_serve.settings import ServeSettings

TIMEOUT = 60


def get(server: Server, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(server.url + path, timeout=TIMEOUT, **kwargs)


def assert_json_error(reply: httpx.Response, status: int) -> dict[str, Any]:
    assert reply.status_code == status, reply.text
    assert reply.headers["content-type"].startswith("application/json")
    body = reply.json()
    assert set(body) == {"error", "message", "subject"}
    return body


def answer_before_body(server: Server, head: str) -> bytes:
    """Send a hand-written HTTP/1.1 request's head (headers no client library would send
    together) and read the answer, which must come before any of the body was sent."""
    parts = urlsplit(server.url)
    received = b""
    with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
        sock.sendall(head.replace("\n", "\r\n").encode() + b"\r\n")
        while chunk := sock.recv(65536):
            received += chunk
    return received


def test_a_length_and_a_chunked_encoding_together_are_refused_before_the_body(
    server: Server,
) -> None:
    host = urlsplit(server.url).netloc
    head = (f"POST /v1/search HTTP/1.1\nHost: {host}\nContent-Type: application/json\n"
            "Content-Length: 2\nTransfer-Encoding: chunked\nConnection: close\n")  # fmt: skip
    answer = answer_before_body(server, head)
    assert answer.startswith(b"HTTP/1.1 400"), answer[:200]
    assert b'"error":"invalid"' in answer.replace(b" ", b"")


def test_a_body_is_counted_as_it_arrives_whatever_its_headers_said() -> None:
    """The guard's own count, beneath the header checks: a stream past the cap is answered
    413 and the app never runs."""
    settings = ServeSettings(max_body_bytes=1000)
    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)

    messages = [{"type": "http.request", "body": b"x" * 600, "more_body": True}] * 3
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        return messages.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    scope = {"type": "http", "method": "POST", "path": "/v1/search",
             "headers": [(b"host", b"127.0.0.1")]}  # fmt: skip
    asyncio.run(Guard(app, settings)(scope, receive, send))
    assert not reached
    assert sent[0]["status"] == 413
    assert len(messages) == 1  # it stopped reading at the cap


@pytest.mark.parametrize("value", ["%C2%B2", "%C2%B3", "%D9%A3", "1e3", "0x10", " 5"])
@pytest.mark.parametrize("name", ["top_k", "hybrid.rrf_k", "hybrid.depth", "rerank.depth"])
def test_a_number_not_in_ascii_digits_is_refused_by_name(
    server: Server, name: str, value: str
) -> None:
    reply = httpx.get(f"{server.url}/v1/search?q=leak&{name}={value}", timeout=TIMEOUT)
    body = assert_json_error(reply, 422)
    assert name in body["message"]


def test_the_chunk_endpoint_refuses_parameters_it_does_not_declare(server: Server) -> None:
    chunk = "chk_" + "0" * 32
    for query in ("top_k=%C2%B2", "top_k=3", "verify=1"):
        reply = httpx.get(f"{server.url}/v1/chunks/{chunk}?{query}", timeout=TIMEOUT)
        assert "top_k" in assert_json_error(reply, 422)["message"] or "verify" in reply.text
    status = httpx.get(f"{server.url}/v1/status?x=1", timeout=TIMEOUT)
    assert "x" in assert_json_error(status, 422)["subject"]


def test_undeclared_repeated_and_malformed_search_parameters_are_refused(server: Server) -> None:
    assert (
        "shoe_size"
        in assert_json_error(get(server, "/v1/search?q=leak&shoe_size=9"), 422)["message"]
    )
    assert (
        "more than once"
        in assert_json_error(get(server, "/v1/search?q=leak&top_k=1&top_k=2"), 422)["message"]
    )
    assert (
        "verify" in assert_json_error(get(server, "/v1/search?q=leak&verify=maybe"), 422)["message"]
    )
    fine = get(server, "/v1/search", params={"q": "leak", "top_k": "3", "verify": "true"})
    assert fine.status_code == 200 and len(fine.json()["results"]) <= 3


def test_a_json_body_nested_thirty_thousand_deep_is_refused_as_json(server: Server) -> None:
    deep = "[" * 30_000 + "]" * 30_000
    reply = httpx.post(
        server.url + "/v1/search",
        content=deep,
        headers={"content-type": "application/json"},
        timeout=TIMEOUT,
    )
    assert "nested too deep" in assert_json_error(reply, 400)["message"]


def test_unknown_paths_and_methods_answer_in_the_json_shape(server: Server) -> None:
    assert_json_error(get(server, "/no/such/path"), 404)
    refused = httpx.delete(server.url + "/v1/search", timeout=TIMEOUT)
    assert_json_error(refused, 405)


def test_an_exception_escaping_the_app_is_a_counted_json_500_without_a_traceback() -> None:
    counted: list[int] = []
    sent: list[dict[str, Any]] = []
    records: list[logging.LogRecord] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        raise RecursionError("deep")

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    class Keep(logging.Handler):
        def emit(self, record: logging.LogRecord) -> None:
            records.append(record)

    logger = logging.getLogger("groundkit.serve")
    keep, level = Keep(), logger.level
    logger.addHandler(keep)
    logger.setLevel(logging.INFO)
    try:
        scope = {"type": "http", "method": "GET", "path": "/v1/search", "headers": []}
        asyncio.run(AccessLog(app, lambda: counted.append(1))(scope, None, send))  # type: ignore[arg-type]
    finally:
        logger.removeHandler(keep)
        logger.setLevel(level)
    assert counted == [1]
    assert sent[0]["status"] == 500
    assert (b"content-type", b"application/json") in sent[0]["headers"]
    assert json.loads(sent[1]["body"])["error"] == "internal"
    lines = [JsonFormatter().format(r) for r in records]
    assert all(r.exc_info is None for r in records)
    assert any('"error": "RecursionError"' in line for line in lines)
    assert not any("Traceback" in line for line in lines)


def test_the_openapi_document_is_valid_typed_and_unique(server: Server) -> None:
    document = get(server, "/openapi.json").json()
    validate(document)
    ids = [op["operationId"] for path in document["paths"].values() for op in path.values()]
    assert len(ids) == len(set(ids))
    parameters = {p["name"]: p for p in document["paths"]["/v1/search"]["get"]["parameters"]}
    assert parameters["top_k"]["schema"]["type"] == "integer"
    assert parameters["top_k"]["schema"]["maximum"] == 20  # the server's --max-top-k
    assert parameters["verify"]["schema"]["type"] == "boolean"
    assert parameters["score_threshold"]["schema"]["type"] == "number"
    assert parameters["mode"]["schema"]["enum"] == ["bm25", "dense", "hybrid"]
    assert parameters["q"]["required"] is True
    assert {"/healthz", "/readyz"} <= set(document["paths"])


def test_serve_refuses_an_index_folder_that_is_not_there(tmp_path: Path) -> None:
    for transport in ("--http", "--stdio"):
        done = subprocess.run(
            serve_command(transport, "--port", "0", "--index-dir", str(tmp_path / "typo")),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 3, done.stderr
        assert "no index folder at" in done.stderr and "Traceback" not in done.stderr


def test_liveness_and_readiness(server: Server, tmp_path: Path) -> None:
    assert get(server, "/healthz").json() == {"status": "ok"}
    wait_for(lambda: get(server, "/readyz").status_code != 503)  # until warm (adr/0056)
    ready = get(server, "/readyz")
    assert ready.status_code == 200 and "default" in ready.json()["collections"]
    empty = tmp_path / "empty-index"
    empty.mkdir()
    waiting = start_server("--index-dir", str(empty))
    try:
        assert get(waiting, "/healthz").status_code == 200
        assert "default" in assert_json_error(get(waiting, "/readyz"), 503)["message"]
    finally:
        waiting.stop()


def test_json_logs_hold_every_request_with_an_id_and_its_transport(index_dir: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--log-json")
    try:
        port = urlsplit(server.url).port
        ok = get(server, "/v1/search", params={"q": "leak"})
        get(server, "/v1/search", headers={"Host": f"attacker.example:{port}"})  # 421
        get(server, "/v1/search?q=leak&top_k=%C2%B2")  # 422
        get(server, "/nowhere")  # 404
        httpx.post(server.url + "/mcp", json={"jsonrpc": "2.0"}, timeout=TIMEOUT)
    finally:
        output = server.stop()
    lines = output.splitlines()
    assert all(line.startswith("{") for line in lines if line.strip()), output[:500]
    records = [json.loads(line) for line in lines if line.strip()]
    assert records[0]["event"].startswith("listening on ") and records[0]["url"] == server.url
    requests = [r for r in records if r["event"] == "http request"]
    assert {r["status"] for r in requests} >= {200, 421, 422, 404}
    assert {r["transport"] for r in requests} == {"rest", "mcp"}
    ids = [r["request_id"] for r in requests]
    assert len(ids) == len(set(ids)) == len(requests)
    assert ok.headers["x-request-id"] in ids
    assert "leak" not in output


def test_a_tool_results_text_is_compact_json(server: Server) -> None:
    async def call() -> Any:
        async with (
            streamable_http_client(server.url + "/mcp") as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            return await session.call_tool("search", {"query": "leak", "top_k": 10})

    result = anyio.run(call)
    text = result.content[0].text
    assert json.loads(text) == result.structured_content
    assert "\n" not in text and ": " not in text[:200]
