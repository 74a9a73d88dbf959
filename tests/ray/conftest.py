"""Ray tests: collected only by ``tox run -e ray`` (``pytest tests/ray``), against a real
local Ray instance (2 CPUs, no dashboard), started once for the session.

A missing ``ray`` skips every test, except under CI, where the ray environment must have it.
"""

from __future__ import annotations

import importlib.util
import os
from collections.abc import Iterator
from typing import Any

import pytest

MISSING = importlib.util.find_spec("ray") is None


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if not MISSING:
        return
    reason = "ray is not installed (pip install '.[ray]')"
    if os.environ.get("CI", "").lower() == "true":
        raise pytest.UsageError(f"{reason}; under CI the ray environment must have it")
    for item in items:
        item.add_marker(pytest.mark.skip(reason=reason))


@pytest.fixture(scope="session")
def ray_local() -> Iterator[Any]:
    """A local Ray instance for the whole session (shut down at the end)."""
    import ray

    ray.init(
        num_cpus=2,
        include_dashboard=False,
        log_to_driver=False,
        configure_logging=False,
        runtime_env={"env_vars": {"PYTHONDONTWRITEBYTECODE": "1"}},
    )
    try:
        yield ray
    finally:
        try:
            from ray import serve

            serve.shutdown()
        finally:
            ray.shutdown()
