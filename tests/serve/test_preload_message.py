"""The start-up warning of a collection that cannot be preloaded names it and the reason
(issue 42.2): the library's message, with the command that creates it."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest

from groundkit_serve import Runtime, ServeSettings


def test_a_failed_preload_says_which_collection_and_why(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    (tmp_path / "index").mkdir()
    runtime = Runtime(ServeSettings(index_dir=tmp_path / "index", collection="handbook"))
    with caplog.at_level(logging.WARNING, logger="groundkit.serve"):
        runtime.preload("handbook")
    [record] = [r for r in caplog.records if "preload" in r.getMessage()]
    message = record.getMessage()
    assert "'handbook'" in message and "no collection at" in message
    assert "`groundkit ingest PATH --collection handbook" in message
