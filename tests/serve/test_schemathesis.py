"""Schemathesis against a real server's own ``/openapi.json`` (issue 29, item 7): a bounded,
seeded run of every check over every operation (no 5xx, statuses and bodies as documented,
invalid data refused, valid data answered). Its CLI runs as a process, like any client;
``schemathesis.toml`` beside this file says which refusals the document cannot express."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from serving import start_server

CONFIG = Path(__file__).with_name("schemathesis.toml")


def test_the_api_answers_as_its_document_says(index_dir: Path, tmp_path: Path) -> None:
    server = start_server("--index-dir", str(index_dir), "--max-top-k", "20")
    command = shutil.which("schemathesis") or str(Path(sys.executable).with_name("schemathesis"))
    try:
        done = subprocess.run(
            [command, "--config-file", str(CONFIG), "run", server.url + "/openapi.json",
             "--checks", "all", "--max-examples", "40", "--seed", "1",
             "--generation-database", "none", "--no-color"],
            capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
        )  # fmt: skip
    finally:
        server.stop()
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert "passed" in done.stdout
