"""Shared fixtures: the location of ../shared/data and how its absence is treated."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent


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
