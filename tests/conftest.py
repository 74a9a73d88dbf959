"""Shared fixtures: the location of ../shared/data and how its absence is treated."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
IN_PYODIDE = sys.platform == "emscripten"

# tests/pyodide drives Node + Pyodide from CPython: only `tox run -e pyodide` runs it, by naming
# it explicitly (an explicit path is collected even when listed here); likewise tests/native
# (third-party native packages) runs only in `tox run -e native`, tests/serve (the service
# extra: MCP SDK, Starlette, uvicorn) only in `tox run -e serve`, and tests/ray (Ray) only in
# `tox run -e ray`, and tests/docs (the documentation's snippets) only in `tox run -e docs`.
collect_ignore = ["pyodide", "native", "serve", "ray", "docs"]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under Pyodide (WebAssembly), skip what needs other processes."""
    if not IN_PYODIDE:
        return
    no_processes = pytest.mark.skip(reason="Pyodide has no processes")
    for item in items:
        if item.get_closest_marker("subprocess") is not None:
            item.add_marker(no_processes)


def shared_data_dir() -> Path | None:
    """``$GROUNDKIT_SHARED_DATA`` or ``<repo>/../shared/data``, if it exists."""
    explicit = os.environ.get("GROUNDKIT_SHARED_DATA")
    candidate = Path(explicit) if explicit else REPO_ROOT.parent / "shared" / "data"
    return candidate if candidate.is_dir() else None


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The evaluation data folder; skips without it, but fails under CI (CI=true)."""
    found = shared_data_dir()
    if found is None:
        reason = "../shared/data is not here (a user's clone has no shared data)"
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{reason}; under CI it must be present")
        pytest.skip(reason)
    return found


HELD_PORTS = (8000, 8765)
"""Ports other software often holds (``python -m http.server``, Ray Serve's proxy, a running
``groundkit serve``): held for the whole session, so a test that binds one instead of a free
port fails here rather than on a newcomer's machine (issue 42.3)."""


_HOLDER = """
import socket, sys
held = []
for port in map(int, sys.argv[1:]):
    holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        held.append(holder)
    except OSError:  # taken already: held by someone else
        holder.close()
print(" ".join(str(h.getsockname()[1]) for h in held), flush=True)
sys.stdin.read()  # until the session ends (or dies: its end of the pipe closes)
"""


@pytest.fixture(scope="session", autouse=True)
def hold_common_ports() -> Iterator[list[int]]:
    """Another process listens on 127.0.0.1 at each of ``HELD_PORTS`` during the run (one
    taken already stays taken); the ports that process holds. ``GROUNDKIT_HOLD_PORTS=0``
    turns it off."""
    if IN_PYODIDE or os.environ.get("GROUNDKIT_HOLD_PORTS", "1") == "0":
        yield []
        return
    process = subprocess.Popen(
        [sys.executable, "-c", _HOLDER, *map(str, HELD_PORTS)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert process.stdout is not None and process.stdin is not None
    try:
        yield [int(port) for port in process.stdout.readline().split()]
    finally:
        process.stdin.close()
        process.wait(timeout=30)
