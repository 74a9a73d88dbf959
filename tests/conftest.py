"""Shared fixtures: the location of ../shared/data and how its absence is treated."""

from __future__ import annotations

import os
import sys
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
