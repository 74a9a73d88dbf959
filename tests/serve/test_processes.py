"""``groundkit serve --processes N`` (issue 39.4): N processes on one listening socket, each
answering with its own read views; a process that dies is replaced; SIGTERM to the parent
drains and ends them all, and a parent killed outright leaves no orphan serving."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import httpx
import pytest
from serving import start_server, wait_for

pytestmark = [
    pytest.mark.subprocess,
    pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc (Linux)"),
]
TIMEOUT = 30.0


def children(parent: int) -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{parent}/task").iterdir():
        with open(task / "children", encoding="ascii") as listed:
            found |= {int(pid) for pid in listed.read().split()}
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text(encoding="ascii").rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def ready(url: str) -> bool:
    with httpx.Client(timeout=TIMEOUT) as client:  # a new connection: any process may take it
        return client.get(url + "/readyz").status_code == 200


def answered_by(url: str) -> int:
    """The process that answered a search and then a status on one new connection."""
    with httpx.Client(timeout=TIMEOUT) as client:
        assert client.get(url + "/v1/search", params={"q": "leak", "top_k": 1}).status_code == 200
        return int(client.get(url + "/v1/status").json()["process"])


def test_every_process_serves_and_they_end_together(index_dir: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--processes", "2", "--grace", "1")
    try:
        parent = server.process.pid
        wait_for(lambda: len(children(parent)) == 2)
        first, second = sorted(children(parent))
        status = httpx.get(server.url + "/v1/status", timeout=TIMEOUT).json()
        assert status["processes"] == 2 and status["process"] in (first, second)
        # ready once warm (adr/0056), each process its own warm-up: every one answers 200
        wait_for(lambda: all(ready(server.url) for _ in range(4)))
        # each process answers on its own: with the other stopped, every request is its
        for serving, paused in ((first, second), (second, first)):
            os.kill(paused, signal.SIGSTOP)
            try:
                assert {answered_by(server.url) for _ in range(4)} == {serving}
            finally:
                os.kill(paused, signal.SIGCONT)
        # a process that dies is replaced, and the service answers meanwhile
        os.kill(first, signal.SIGKILL)
        assert answered_by(server.url) == second
        wait_for(lambda: len(children(parent)) == 2 and first not in children(parent))
        replacement = (children(parent) - {second}).pop()
        os.kill(second, signal.SIGSTOP)
        try:
            assert answered_by(server.url) == replacement
        finally:
            os.kill(second, signal.SIGCONT)
        # SIGTERM to the parent ends every process
        server.process.send_signal(signal.SIGTERM)
        assert server.process.wait(timeout=TIMEOUT) == 0
        wait_for(lambda: not alive(second) and not alive(replacement))
    finally:
        server.stop()


def test_a_killed_parent_leaves_no_orphan(index_dir: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--processes", "2", "--grace", "0")
    try:
        wait_for(lambda: len(children(server.process.pid)) == 2)
        orphans = children(server.process.pid)
        server.process.kill()
        server.process.wait(timeout=TIMEOUT)
        wait_for(lambda: not any(alive(pid) for pid in orphans))
    finally:
        server.stop()


def test_processes_need_http(index_dir: Path) -> None:
    from groundkit.cli.app import main

    argv = ["serve", "--stdio", "--index-dir", str(index_dir), "--processes", "2"]
    assert main(argv) == 2
