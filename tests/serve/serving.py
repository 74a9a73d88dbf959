"""Helpers of the service tests: start a real server process, write a corpus, wait."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import groundkit

START_TIMEOUT_S = 60.0


@dataclass
class Server:
    """A running ``groundkit serve --http`` process and what it printed on stderr."""

    process: subprocess.Popen[str]
    url: str
    lines: list[str] = field(default_factory=list)

    def stop(self) -> str:
        """Stop the server (SIGTERM, then SIGKILL) and return everything it wrote on stderr."""
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=15)
        return "".join(self.lines)


def serve_command(*args: str) -> list[str]:
    return [sys.executable, "-m", "groundkit", "serve", *args]


def start_server(
    *args: str, env: dict[str, str] | None = None, timeout: float = START_TIMEOUT_S
) -> Server:
    """Start ``groundkit serve --http --port 0 ARGS`` and wait for its listening line; one
    process unless ARGS say ``--processes`` (a test reads one process's counts)."""
    single = () if "--processes" in args else ("--processes", "1")
    process = subprocess.Popen(
        serve_command("--http", "--port", "0", *single, *args),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, **(env or {})},
    )
    assert process.stderr is not None
    server = Server(process, url="")
    ready = threading.Event()

    def pump() -> None:
        assert process.stderr is not None
        for line in process.stderr:
            server.lines.append(line)
            if "listening on " in line:  # a text line, or a JSON one under --log-json
                server.url = line.split("listening on ", 1)[1].split()[0].rstrip('",')
                ready.set()
        ready.set()

    threading.Thread(target=pump, daemon=True).start()
    if not ready.wait(timeout) or not server.url:
        output = server.stop()
        raise AssertionError(f"the server did not start: {output}")
    return server


def write_corpus(root: Path) -> Path:
    """A copy of the bundled sample corpus (tests may change it) plus one marked document."""
    shutil.copytree(groundkit.sample_corpus(), root)
    write_marked(root, 1)
    return root


def write_marked(root: Path, version: int) -> None:
    """A document of several chunks, every one naming the same ``version``."""
    sections = "\n\n".join(
        f"## Section {n}\n\n" + f"The marker zebraquokka says version v{version}. " * 12
        for n in range(6)
    )
    (root / "marked.md").write_text(f"# Marked\n\n{sections}\n", encoding="utf-8")


def wait_for(predicate: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if callable(predicate) and predicate():
            return
        time.sleep(0.1)
    raise AssertionError("timed out waiting")
