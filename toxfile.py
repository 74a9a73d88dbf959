"""tox's inline plugin: progress while an environment installs (issue 42.4).

tox shows nothing of an install below ``-vv``, and some take minutes (ray's 5, pyodide's
Node packages and wheels). From an environment's first install until its commands start, a
line says how long it has run, how much the environment has grown and at what rate, and, where
this machine installed it before, about how long is left. On a terminal the line is redrawn
every 2 s; otherwise (CI logs) a line is written every 30 s. Packaging environments (the
wheel's build) are left alone: they have no commands to end the watch. The last install's
duration is kept beside the environments (``.tox/.groundkit-install-seconds.json``), so a
recreated environment still has its estimate.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

from tox.plugin import impl
from tox.tox_env.package import PackageToxEnv

RECORD = ".groundkit-install-seconds.json"
QUIET_S = 5.0  # an install shorter than this says nothing


class _Progress:
    """One environment's install, watched from a daemon thread until its commands start."""

    def __init__(self, name: str, folder: Path) -> None:
        self.name, self.folder = name, folder
        self.started = time.monotonic()
        self.base = _size_mb(folder)
        self.stop = threading.Event()
        self.terminal = sys.stderr.isatty()
        self.spoke = False
        self.expected: float | None = _records(folder).get(name)
        self.thread = threading.Thread(target=self._run, name=f"install-{name}", daemon=True)
        self.thread.start()

    def _run(self) -> None:
        every = 2.0 if self.terminal else 30.0
        while not self.stop.wait(every if self.spoke else QUIET_S):
            self._say(self.line())

    def line(self) -> str:
        elapsed = time.monotonic() - self.started
        grown = max(_size_mb(self.folder) - self.base, 0.0)
        text = (
            f"{self.name}: installing, {elapsed:.0f} s, {grown:.0f} MB ({grown / elapsed:.1f} MB/s)"
        )
        if self.expected is not None:
            left = self.expected - elapsed
            text += f", about {left:.0f} s left" if left > 0 else ", longer than last time"
        return text

    def _say(self, text: str) -> None:
        self.spoke = True
        end = "\r" if self.terminal else "\n"
        print(f"\x1b[2K{text}" if self.terminal else text, end=end, file=sys.stderr, flush=True)

    def finish(self, record: bool) -> None:
        self.stop.set()
        self.thread.join()
        elapsed = time.monotonic() - self.started
        if self.spoke:
            clear = "\x1b[2K" if self.terminal else ""
            print(f"{clear}{self.name}: installed in {elapsed:.0f} s", file=sys.stderr, flush=True)
        if record:
            records = {**_records(self.folder), self.name: round(elapsed, 1)}
            with contextlib.suppress(OSError):  # an estimate is never worth failing a run
                (self.folder.parent / RECORD).write_text(json.dumps(records, indent=1) + "\n")


def _records(folder: Path) -> dict[str, float]:
    """The last install's seconds of each environment beside ``folder``."""
    try:
        found = json.loads((folder.parent / RECORD).read_text())
    except (OSError, ValueError):
        return {}
    return {k: float(v) for k, v in found.items() if isinstance(v, int | float)}


def _size_mb(folder: Path) -> float:
    total = 0
    for root, _dirs, files in os.walk(folder):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total / 1e6


_watching: dict[str, _Progress] = {}


@impl
def tox_on_install(tox_env: Any, arguments: Any, section: str, of_type: str) -> None:
    name = tox_env.name
    if name not in _watching and not isinstance(tox_env, PackageToxEnv):
        _watching[name] = _Progress(name, Path(tox_env.env_dir))


@impl
def tox_before_run_commands(tox_env: Any) -> None:
    watched = _watching.pop(tox_env.name, None)
    if watched is not None:
        watched.finish(record=True)


@impl
def tox_env_teardown(tox_env: Any) -> None:
    watched = _watching.pop(tox_env.name, None)
    if watched is not None:  # the install failed: tox says why; nothing to record
        watched.finish(record=False)
