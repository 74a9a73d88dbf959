"""Protocol hygiene and integrity (issue 39, items 3, 5 and 6): probes with a query string, the
client's request id, duplicate keys and non-JSON bodies, a busy port, JSON-only logs, short
errors without server paths, cross-site browser requests, and a copied or damaged collection."""

from __future__ import annotations

import functools
import http.server
import json
import os
import random
import shutil
import socket
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from serving import Server, serve_command, start_server, wait_for

import groundkit

TIMEOUT = 60
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def get(server: Server, path: str, **kwargs: Any) -> httpx.Response:
    return httpx.get(server.url + path, timeout=TIMEOUT, **kwargs)


def ready(server: Server) -> None:
    wait_for(lambda: get(server, "/readyz").status_code == 200)


def test_probes_ignore_a_query_string(server: Server) -> None:
    ready(server)
    for path in ("/healthz?x=1", "/readyz?x=1", "/healthz?x=1&x=2"):
        reply = get(server, path)
        assert reply.status_code == 200, reply.text


def test_the_clients_request_id_is_echoed_and_a_malformed_one_replaced(server: Server) -> None:
    mine = "trace-7f3a.42:b_c"
    reply = get(server, "/v1/search", params={"q": "leak"}, headers={"X-Request-Id": mine})
    assert reply.status_code == 200 and reply.headers["x-request-id"] == mine
    refused = get(server, "/nowhere", headers={"X-Request-Id": mine})
    assert refused.status_code == 404 and refused.headers["x-request-id"] == mine
    for bad in ("a" * 129, "two words", "semi;colon"):
        answered = get(server, "/healthz", headers={"X-Request-Id": bad})
        assert answered.headers["x-request-id"] not in (bad, "")


def test_duplicate_keys_and_bodies_that_are_not_json_are_refused(server: Server) -> None:
    def post(path: str, body: bytes, kind: str) -> httpx.Response:
        headers = {"Content-Type": kind}
        return httpx.post(server.url + path, content=body, headers=headers, timeout=TIMEOUT)

    twice = post(
        "/v1/search", b'{"query": "leak", "top_k": 3, "query": "nothing"}', "application/json"
    )
    assert twice.status_code == 400 and "'query'" in twice.json()["message"], twice.text
    nested = post("/v1/verify", b'{"citation": {"source": "a", "source": "b"}}', "application/json")
    assert nested.status_code == 400 and "'source'" in nested.json()["message"]
    plain = post("/v1/search", b'{"query": "leak"}', "text/plain")
    assert plain.status_code == 415 and plain.json()["error"] == "unsupported_media_type"
    rpc = b'{"jsonrpc": "2.0", "id": 1, "id": 2, "method": "ping"}'
    assert post("/mcp", rpc, "application/json").status_code == 400
    fine = post("/v1/search", b'{"query": "leak"}', "application/json; charset=utf-8")
    assert fine.status_code == 200, fine.text


@pytest.mark.parametrize("processes", ["1", "2"])  # 2: the parent's bind, before the fork
def test_a_busy_port_is_named_with_its_own_exit_code(index_dir: Path, processes: str) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        argv = ("--http", "--port", str(port), "--processes", processes)
        done = subprocess.run(
            serve_command(*argv, "--index-dir", str(index_dir)),
            capture_output=True, text=True, timeout=60, check=False, stdin=subprocess.DEVNULL,
        )  # fmt: skip
    assert done.returncode == 7, done.stderr
    assert done.stderr.strip() == (
        f"groundkit: error: port {port} is in use; pass --port (0 picks a free one)"
    )


def test_json_logs_are_json_lines_only_malformed_http_included(index_dir: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--log-json")
    try:
        parts = urlsplit(server.url)
        with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
            sock.sendall(b"NOT HTTP AT ALL\x00\r\n\r\n")
            answer = sock.recv(65536)
        assert answer.startswith(b"HTTP/1.1 400")

        async def call() -> Any:
            async with (
                streamable_http_client(server.url + "/mcp") as streams,
                ClientSession(streams[0], streams[1]) as session,
            ):
                await session.initialize()
                return await session.call_tool("search", {"query": "leak", "top_k": 2})

        assert not anyio.run(call).is_error
    finally:
        output = server.stop()
    lines = [line for line in output.splitlines() if line.strip()]
    assert all(line.startswith("{") and line.endswith("}") for line in lines), output[:2000]
    records = [json.loads(line) for line in lines]
    malformed = [r for r in records if r["logger"].startswith("uvicorn")]
    assert malformed and all(len(r["request_id"]) == 16 for r in malformed), records
    assert "Traceback" not in output


def test_errors_are_short_and_name_no_absolute_server_path(server: Server, index_dir: Path) -> None:
    root = str(index_dir.resolve())
    damaged = get(server, "/v1/search", params={"q": "leak", "collection": "broken"})
    assert damaged.status_code == 503
    message = damaged.json()["message"]
    assert root not in damaged.text and "broken/collection.sqlite" in message
    assert len(message) < 400

    async def call() -> Any:
        async with (
            streamable_http_client(server.url + "/mcp") as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            return await session.call_tool("search", {"query": "leak", "collection": "broken"})

    result = anyio.run(call)
    text = result.content[0].text
    assert result.is_error and root not in text and "pydantic.dev" not in text
    assert "broken/collection.sqlite" in text


# --- cross-site requests ---------------------------------------------------------------------


def test_cross_site_requests_do_no_work_get_included(index_dir: Path) -> None:
    """The headers browsers send (Chromium, Firefox, Safari since 16.4): another site's page
    is refused before any work, a typed address or the server's own page is not, and an Origin
    allowed by name is let through."""
    server = start_server("--index-dir", str(index_dir), "--allow-origin", "http://app.example")
    try:
        path = "/v1/search?q=leak&fuzzy=true"
        for site in ("cross-site", "same-site"):
            refused = get(
                server, path, headers={"Sec-Fetch-Site": site, "Sec-Fetch-Mode": "no-cors"}
            )
            assert refused.status_code == 403 and refused.json()["error"] == "cross_site"
        for site in ("same-origin", "none"):
            assert get(server, path, headers={"Sec-Fetch-Site": site}).status_code == 200
        named = {"Sec-Fetch-Site": "cross-site", "Origin": "http://app.example"}
        assert get(server, path, headers=named).status_code == 200
        other = {"Sec-Fetch-Site": "cross-site", "Origin": "http://localhost:9"}
        assert get(server, path, headers=other).status_code == 403
        assert get(server, "/v1/status").json()["requests"] == 3  # the refused did nothing
    finally:
        server.stop()


@pytest.fixture
def foreign_page(tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """A folder served by a plain HTTP server on another port: another origin's pages."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as httpd:
        thread = threading.Thread(target=httpd.serve_forever, daemon=True)
        thread.start()
        try:
            yield tmp_path, f"http://localhost:{httpd.server_address[1]}"
        finally:
            httpd.shutdown()


@pytest.mark.skipif(CHROMIUM is None, reason="needs chromium")
def test_a_page_of_another_site_cannot_make_the_server_search(
    index_dir: Path, foreign_page: tuple[Path, str]
) -> None:
    """A real browser: a page at http://localhost:PORT loads an <img>, a no-cors fetch and a
    form-like POST aimed at the server on 127.0.0.1; every one arrives and is refused."""
    server = start_server("--index-dir", str(index_dir), "--log-json")
    folder, origin = foreign_page
    target = server.url + "/v1/search?q=leak&fuzzy=true"
    (folder / "page.html").write_text(
        f'<!doctype html><img src="{target}"><script>'
        f'fetch("{target}", {{mode: "no-cors"}}).finally(() => document.title = "sent");'
        "</script>",
        encoding="utf-8",
    )
    assert CHROMIUM is not None
    try:
        subprocess.run(
            [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
             f"--user-data-dir={folder / 'profile'}", "--virtual-time-budget=5000",
             "--dump-dom", f"{origin}/page.html"],
            capture_output=True, text=True, timeout=60, check=False,
            env={**os.environ, "HOME": str(folder)},
        )  # fmt: skip
        requests = get(server, "/v1/status").json()["requests"]
    finally:
        output = server.stop()
    records = [json.loads(line) for line in output.splitlines() if line.startswith("{")]
    searches = [r for r in records if r.get("path") == "/v1/search"]
    assert len(searches) >= 2, output[-2000:]  # the browser did send them
    assert {r["status"] for r in searches} == {403}
    assert requests == 0  # no tool ran (the status call itself is counted after its reply)


# --- a copied or damaged collection ---------------------------------------------------------


def _index(root: Path) -> Path:
    corpus = root / "corpus"
    shutil.copytree(groundkit.sample_corpus(), corpus)
    groundkit.ingest(corpus, index_dir=root / "index")
    return root / "index"


def test_a_byte_identical_copy_is_served_and_damage_in_place_is_not(tmp_path: Path) -> None:
    original = _index(tmp_path)
    copied = tmp_path / "copied"
    subprocess.run(["cp", "-r", str(original), str(copied)], check=True)  # new mtimes
    sqlite_file = copied / "default" / "collection.sqlite"
    assert (
        sqlite_file.stat().st_mtime_ns
        != (original / "default" / "collection.sqlite").stat().st_mtime_ns
    )
    server = start_server("--index-dir", str(copied))
    try:
        assert get(server, "/v1/search", params={"q": "leak"}).status_code == 200
        ready(server)
        with sqlite_file.open("r+b") as handle:  # 200 bytes flipped in place, size unchanged
            size = sqlite_file.stat().st_size
            for n in range(200):
                handle.seek((size // 3 + n * 97) % size)
                byte = handle.read(1)
                handle.seek(-1, os.SEEK_CUR)
                handle.write(bytes([byte[0] ^ 0xFF]))
        for route in ("/v1/search?q=leak", "/readyz"):
            refused = get(server, route)
            assert refused.status_code == 503, refused.text
            assert "changed outside groundkit" in refused.json()["message"]
    finally:
        server.stop()


def _flip(path: Path, count: int = 200) -> None:
    """``count`` random bytes of ``path`` replaced in place (seeded), its size kept."""
    rng = random.Random(7)
    size = path.stat().st_size
    with path.open("r+b") as handle:
        for _ in range(count):
            handle.seek(rng.randrange(100, size))
            handle.write(bytes([rng.randrange(256)]))


def test_damage_in_place_of_a_file_with_no_stamp_is_not_served(tmp_path: Path) -> None:
    """A file whose writer left no stamp (a reader kept frames in its log) and is then damaged
    in place: the change at the same generation is checked, and the file fails closed."""
    index = _index(tmp_path)
    path = index / "default" / "collection.sqlite"
    Path(f"{path}-sound").unlink()
    server = start_server("--index-dir", str(index))
    try:
        ready(server)
        assert get(server, "/v1/search", params={"q": "leak"}).status_code == 200
        _flip(path)
        wait_for(lambda: get(server, "/v1/search", params={"q": "leak"}).status_code == 503)
        refused = get(server, "/v1/search", params={"q": "leak"})
        assert "damaged" in refused.json()["message"]
        assert get(server, "/readyz").status_code == 503
    finally:
        server.stop()


def test_a_sound_file_changed_by_no_writer_is_served_once_check_passes(tmp_path: Path) -> None:
    index = _index(tmp_path)
    path = index / "default" / "collection.sqlite"
    db = sqlite3.connect(path)  # rewritten by hand: sound, but not byte-identical to its stamp
    db.execute("VACUUM")
    db.close()
    server = start_server("--index-dir", str(index))
    try:
        refused = get(server, "/v1/search", params={"q": "leak"})
        assert refused.status_code == 503 and "`groundkit check`" in refused.json()["message"]
        checked = subprocess.run(
            [*serve_command()[:-1], "check", "--index-dir", str(index)],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert checked.returncode == 0, checked.stdout + checked.stderr
        assert get(server, "/v1/search", params={"q": "leak"}).status_code == 200
        ready(server)
    finally:
        server.stop()


def test_readiness_waits_for_the_default_collection_to_be_opened_and_warmed(
    tmp_path: Path,
) -> None:
    """Issue 39.5: a default collection that appears after the start is listed as sound at
    once, but /readyz says ready only once its read view is open and warmed."""
    index = tmp_path / "index"
    index.mkdir()
    server = start_server("--index-dir", str(index))
    try:
        assert get(server, "/readyz").status_code == 503
        corpus = tmp_path / "corpus"
        shutil.copytree(groundkit.sample_corpus(), corpus)
        groundkit.ingest(corpus, index_dir=index)
        wait_for(lambda: get(server, "/readyz").status_code == 200)
        assert "default" in get(server, "/v1/status").json()["open_collections"]
    finally:
        server.stop()
