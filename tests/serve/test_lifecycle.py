"""The service's work under time limits, cancellation and concurrency (issue 29, items 3, 4
and 8): a whole-collection verify runs beside searches, reports MCP progress, and stops when
its request times out or is cancelled; MCP tool schemas say what the server enforces."""

from __future__ import annotations

import random
import shutil
import signal
import socket
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from serving import Server, serve_command, start_server

import groundkit

TIMEOUT = 60
WORDS = [a + b + c for a in "bdfgklmnprst" for b in "aeiou" for c in ("ra", "lo", "ven", "mis")]


@pytest.fixture(scope="module")
def big_index(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """3,000 files, over 8,000 chunks: a whole-collection verify takes a while and reports
    progress many times."""
    root = tmp_path_factory.mktemp("big")
    corpus = root / "corpus"
    corpus.mkdir()
    rng = random.Random(5)
    for n in range(3000):
        paragraphs = [f"# File {n}"] + [" ".join(rng.choices(WORDS, k=90)) + "." for _ in range(4)]
        (corpus / f"f{n:04}.md").write_text("\n\n".join(paragraphs) + "\n", encoding="utf-8")
    groundkit.ingest(corpus, index_dir=root / "index")
    return root / "index"


@pytest.fixture(scope="module")
def big_server(big_index: Path) -> Iterator[Server]:
    running = start_server("--index-dir", str(big_index), "--workers", "2")
    yield running
    running.stop()


def status(server: Server) -> dict[str, Any]:
    reply = httpx.get(server.url + "/v1/status", timeout=TIMEOUT)
    reply.raise_for_status()
    body: dict[str, Any] = reply.json()
    return body


def wait_until_idle(server: Server, seconds: float = 10.0) -> dict[str, Any]:
    """The status once no verify runs (bounded: a hang fails, nothing is timed)."""
    done = threading.Event()
    for _ in range(int(seconds / 0.1)):
        now = status(server)
        if now["verifications_running"] == 0:
            return now
        done.wait(0.1)
    raise AssertionError(f"a verify is still running: {now}")


def session_call(server: Server, body: Any) -> Any:
    async def main() -> Any:
        async with (
            streamable_http_client(server.url + "/mcp") as streams,
            ClientSession(streams[0], streams[1]) as session,
        ):
            await session.initialize()
            return await body(session)

    return anyio.run(main)


def test_searches_answer_while_a_whole_collection_verify_runs(big_server: Server) -> None:
    seen: dict[str, Any] = {"progress": [], "during": []}

    async def body(session: ClientSession) -> Any:
        finished = anyio.Event()

        async def progress(done: float, total: float | None, message: str | None) -> None:
            seen["progress"].append((done, total))

        async def search_until_verified() -> None:
            async with httpx.AsyncClient(timeout=TIMEOUT) as client:
                while not finished.is_set():
                    reply = await client.get(big_server.url + "/v1/search", params={"q": "bara"})
                    running = (await client.get(big_server.url + "/v1/status")).json()
                    seen["during"].append((reply.status_code, running["verifications_running"]))

        async def verify() -> None:
            seen["verify"] = await session.call_tool("verify", {}, progress_callback=progress)
            finished.set()

        async with anyio.create_task_group() as group:
            group.start_soon(verify)
            group.start_soon(search_until_verified)

    session_call(big_server, body)
    answered_during = [code for code, running in seen["during"] if running == 1]
    assert len(answered_during) >= 3 and set(answered_during) == {200}  # none waited for it
    collections = httpx.get(big_server.url + "/v1/collections", timeout=TIMEOUT).json()
    chunks = collections["collections"][0]["chunks"]
    result = seen["verify"].structured_content
    assert result["checked"] == chunks and result["verified"] == chunks
    dones = [done for done, _ in seen["progress"]]
    assert len(dones) > 3 and dones == sorted(dones) and seen["progress"][-1] == (chunks, chunks)


def test_a_cancelled_verify_stops_its_work(big_server: Server) -> None:
    before = status(big_server)["verifications_cancelled"]

    async def body(session: ClientSession) -> None:
        started = anyio.Event()

        async def progress(done: float, total: float | None, message: str | None) -> None:
            started.set()

        async with anyio.create_task_group() as group:
            scope = anyio.CancelScope()  # cancelled at the first progress: before the end

            async def call() -> None:
                with scope:
                    await session.call_tool("verify", {}, progress_callback=progress)

            group.start_soon(call)
            await started.wait()
            scope.cancel()  # the client abandons the call: the SDK tells the server

    session_call(big_server, body)
    idle = wait_until_idle(big_server)
    assert idle["verifications_cancelled"] == before + 1  # stopped, not run to its end
    assert idle["threads"] <= idle["workers"] + 8


def test_timed_out_verifies_leave_no_work_running(big_index: Path) -> None:
    server = start_server(  # six verifies admitted at once: each times out, none is refused
        "--index-dir", str(big_index), "--workers", "2", "--verify-timeout", "0.2",
        "--max-verifies", "6",
    )  # fmt: skip
    try:

        def verify(_: int) -> int:
            return httpx.post(server.url + "/v1/verify", json={}, timeout=TIMEOUT).status_code

        threads = [threading.Thread(target=lambda: codes.append(verify(0))) for _ in range(6)]
        codes: list[int] = []
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(TIMEOUT)
        assert codes == [504] * 6
        idle = wait_until_idle(server, seconds=5)
        # each that had started was stopped at its deadline (those still waiting for a worker
        # never started)
        assert idle["verifications_cancelled"] >= 1
        assert idle["threads"] <= idle["workers"] + 8
    finally:
        server.stop()


def test_unknown_tool_arguments_are_refused_by_name(server: Server) -> None:
    async def body(session: ClientSession) -> Any:
        return await session.call_tool("search", {"query": "leak", "shoe_size": 9})

    result = session_call(server, body)
    assert result.is_error and "shoe_size" in result.content[0].text


def test_a_missing_chunk_resource_is_the_protocols_not_found(server: Server) -> None:
    async def body(session: ClientSession) -> Any:
        with pytest.raises(MCPError) as raised:
            await session.read_resource(f"groundkit://chunks/default/chk_{'0' * 32}")
        return raised.value

    error = session_call(server, body)
    assert error.error.code == -32602  # the current protocol's not-found (ResourceNotFoundError)
    assert "not_found" in error.error.message


def test_a_collection_file_changed_outside_groundkit_is_not_served(tmp_path: Path) -> None:
    corpus = tmp_path / "corpus"
    shutil.copytree(groundkit.sample_corpus(), corpus)
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index)
    server = start_server("--index-dir", str(index))
    try:
        found = httpx.get(server.url + "/v1/search", params={"q": "leak"}, timeout=TIMEOUT)
        assert found.status_code == 200  # the read view is open and cached
        path = index / "default" / "collection.sqlite"
        with path.open("r+b") as handle:  # damage a page in the middle, size unchanged
            handle.seek(path.stat().st_size // 2)
            handle.write(b"\x00" * 512)
        for route in ("/v1/search?q=leak", "/readyz"):
            refused = httpx.get(server.url + route, timeout=TIMEOUT)
            assert refused.status_code == 503, refused.text
            assert "changed outside groundkit" in refused.json()["message"]
    finally:
        server.stop()


def _verify_then_sigterm(index: Path, grace: str) -> tuple[Any, int]:
    """An MCP-over-HTTP verify, with SIGTERM sent to the server at its first progress: the
    call's outcome (its result, or the exception that lost it) and the server's exit."""
    server = start_server("--index-dir", str(index), "--grace", grace)

    async def body(session: ClientSession) -> Any:
        await session.list_tools()  # as a client does first (it checks results against them)
        sent = threading.Event()

        async def progress(done: float, total: float | None, message: str | None) -> None:
            if not sent.is_set():
                sent.set()
                server.process.send_signal(signal.SIGTERM)

        return await session.call_tool("verify", {}, progress_callback=progress)

    try:
        outcome: Any = session_call(server, body)
    except Exception as exc:  # the call was lost with the server
        outcome = exc
    code = server.process.wait(TIMEOUT)
    server.stop()
    return outcome, code


def test_sigterm_lets_an_mcp_call_in_flight_finish_within_the_grace(big_index: Path) -> None:
    outcome, _ = _verify_then_sigterm(big_index, "30")
    assert not isinstance(outcome, Exception), outcome
    assert outcome.structured_content["verified"] == outcome.structured_content["checked"] > 0


@pytest.mark.parametrize("grace", ["-1", "nan", "inf", "soon"])
def test_a_grace_that_is_not_a_finite_number_of_seconds_is_refused(grace: str) -> None:
    done = subprocess.run(
        serve_command("--http", "--grace", grace), capture_output=True, text=True, timeout=60,
        check=False, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 2 and "--grace" in done.stderr


def test_the_default_collection_is_opened_and_warmed_at_start(index_dir: Path) -> None:
    """Issue 32, item 4: the server opens its default collection (loading its vector store)
    before any search asks, so the first query is not the one that pays for it."""
    server = start_server("--index-dir", str(index_dir), "--collection", "dense")
    try:
        done = threading.Event()
        for _ in range(100):
            if "dense" in status(server)["open_collections"]:
                break
            done.wait(0.1)
        assert "dense" in status(server)["open_collections"]  # and no search was made
    finally:
        server.stop()


def test_verifies_have_their_own_lane_and_more_are_refused(big_index: Path) -> None:
    """Issue 39.2: with one search thread, a whole-collection verify running leaves it free for
    searches, and a second verify past --max-verifies is refused at once with Retry-After."""
    server = start_server(
        "--index-dir", str(big_index), "--workers", "1", "--max-verifies", "1", "--timeout", "5"
    )
    codes: list[int] = []
    try:
        first = threading.Thread(
            target=lambda: codes.append(
                httpx.post(server.url + "/v1/verify", json={}, timeout=TIMEOUT).status_code
            )
        )
        first.start()
        done = threading.Event()
        for _ in range(200):
            if status(server)["verifications_running"] == 1:
                break
            done.wait(0.05)
        second = httpx.post(server.url + "/v1/verify", json={}, timeout=TIMEOUT)
        assert second.status_code == 429, second.text
        assert second.json()["error"] == "busy" and int(second.headers["retry-after"]) > 0
        searched = httpx.get(server.url + "/v1/search", params={"q": "bara"}, timeout=TIMEOUT)
        still = status(server)["verifications_running"]
        assert searched.status_code == 200 and still == 1  # answered while the verify ran
        first.join(TIMEOUT)
        assert codes == [200]
    finally:
        server.stop()


def test_a_rest_client_that_disconnects_cancels_its_verify(big_server: Server) -> None:
    """The client goes (``curl -m 1``) once its verify is seen running, however fast the
    machine: the server stops the verify instead of running it to its end."""
    before = wait_until_idle(big_server)["verifications_cancelled"]
    url = httpx.URL(big_server.url)
    request = (
        f"POST /v1/verify HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
        "Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
    )
    with socket.create_connection((url.host, url.port or 80), timeout=TIMEOUT) as client:
        client.sendall(request.encode("ascii"))
        waited = threading.Event()
        for _ in range(1000):
            if status(big_server)["verifications_running"] == 1:
                break
            waited.wait(0.01)
        else:
            raise AssertionError("the verify was never seen running")
    idle = wait_until_idle(big_server, seconds=10)
    assert idle["verifications_cancelled"] == before + 1  # stopped, not run to its end


def test_rest_work_cut_by_the_grace_is_a_json_503(big_index: Path) -> None:
    """Issue 39.5: SIGTERM with --grace 0.05 while a REST verify runs (far shorter than the
    verify on any machine): its client gets the JSON 503 'stopping', no traceback, an exit."""
    server = start_server("--index-dir", str(big_index), "--grace", "0.05")
    replies: list[httpx.Response] = []
    asked = threading.Thread(
        target=lambda: replies.append(
            httpx.post(server.url + "/v1/verify", json={}, timeout=TIMEOUT)
        )
    )
    asked.start()
    done = threading.Event()
    for _ in range(200):
        if status(server)["verifications_running"] == 1:
            break
        done.wait(0.05)
    server.process.send_signal(signal.SIGTERM)
    asked.join(TIMEOUT)
    code = server.process.wait(TIMEOUT)
    output = server.stop()
    assert len(replies) == 1 and replies[0].status_code == 503, replies
    assert replies[0].json()["error"] == "stopping"
    assert "Traceback" not in output and code in (0, -signal.SIGTERM), output


def test_an_mcp_call_past_the_grace_gets_an_error_at_once(big_index: Path) -> None:
    """Issue 39.5: past --grace the MCP call in flight is answered with a tool error before the
    streams close; the client is not left waiting for its own timeout (a hang fails here)."""
    outcome, code = _verify_then_sigterm(big_index, "0.02")
    assert code in (0, -signal.SIGTERM)  # uvicorn raises the signal again once it has stopped
    assert not isinstance(outcome, Exception), outcome
    assert outcome.is_error and "stopping" in outcome.content[0].text
