"""``build-site --snapshot``: Pyodide's memory snapshot with groundkit imported, made in Node.js.

The page's worker restores it instead of starting Python and importing groundkit (ADR 0019).
A snapshot only restores into the exact runtime build that made it, so it is made from the
site's own copy of the runtime (``--pyodide-dir``). It ships gzipped (the worker inflates it),
or plain with pre-compressed siblings (``--precompress``), beside a standard library trimmed to
what the restored worker can import (ADR 0033), and without its long runs of zero bytes
(``strip_zero_runs``, ADR 0033): the worker puts them back.
"""

from __future__ import annotations

import json
import re
import shutil
import struct
import subprocess
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

from groundkit.errors import ConfigurationError, GroundkitError
from groundkit.site.precompress import gzip_bytes

__all__ = [
    "SNAPSHOT_FILE",
    "STDLIB_ZIP",
    "ZERO_RUNS_MAGIC",
    "gzip_file",
    "make_snapshot",
    "strip_zero_runs",
    "trim_stdlib",
]

SNAPSHOT_FILE = "snapshot.bin"
STDLIB_ZIP = "python_stdlib.zip"
_APP = Path(__file__).resolve().parent / "web_app"
_SCRIPT = _APP / "make_snapshot.mjs"
_TIMEOUT_S = 600
NOTICE_EVERY_S = 10.0
"""Seconds between two lines of ``build-site --snapshot``'s progress while Node.js runs."""
ZERO_RUNS_MAGIC = b"GKZR"  # the worker's unpacking (worker.js, unpackZeroRuns) reads this format
_MIN_ZERO_RUN = 4096


def check_snapshot_tools() -> str:
    """The ``node`` to run, or a ``ConfigurationError`` saying what to install."""
    node = shutil.which("node")
    if node is None:
        raise ConfigurationError(
            "--snapshot: Node.js >= 20 must be on PATH to make Pyodide's memory snapshot; "
            "install it, or build without --snapshot",
            subject="node",
        )
    return node


def make_snapshot(
    pyodide_dir: Path, wheel: Path, out: Path, *, notice: Callable[[str], None] | None = None
) -> list[str]:
    """Write ``out``: the snapshot of ``pyodide_dir``'s runtime with ``wheel`` imported.
    Returns the modules the restored worker can import that the snapshot does not hold.
    ``notice`` hears a line when Node.js starts and every ``NOTICE_EVERY_S`` while it runs."""
    node = check_snapshot_tools()
    if notice is not None:
        notice("making the memory snapshot with Node.js (about 100 s on 2 cores)")
    try:
        done = run_reporting(
            [node, str(_SCRIPT), str(pyodide_dir), str(wheel), str(out), str(_APP)],
            timeout_s=_TIMEOUT_S,
            every_s=NOTICE_EVERY_S,
            notice=notice,
            what="the memory snapshot",
        )
    except subprocess.TimeoutExpired as exc:
        raise GroundkitError(f"--snapshot: Node.js ran past {_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-6:])
        raise GroundkitError(f"--snapshot: making the memory snapshot failed:\n{tail}")
    made = json.loads(done.stdout.strip().splitlines()[-1])
    held = set(made["imported"])  # in the snapshot's memory already: never read from the zip
    return [str(name) for name in made["modules"] if name not in held]


def run_reporting(
    argv: list[str],
    *,
    timeout_s: float,
    every_s: float,
    notice: Callable[[str], None] | None,
    what: str,
) -> subprocess.CompletedProcess[str]:
    """``subprocess.run(argv, capture_output=True, text=True)`` within ``timeout_s``, telling
    ``notice`` every ``every_s`` that ``what`` is still being made and for how long."""
    started = time.monotonic()
    with subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        while True:
            try:  # a retried communicate() loses no output (the subprocess docs)
                out, err = process.communicate(timeout=every_s)
                break
            except subprocess.TimeoutExpired:
                elapsed = time.monotonic() - started
                if elapsed >= timeout_s:
                    process.kill()
                    process.communicate()
                    raise
                if notice is not None:
                    notice(f"still making {what}: {elapsed:.0f} s so far")
    return subprocess.CompletedProcess(argv, process.returncode, out, err)


def strip_zero_runs(path: Path) -> int:
    """Rewrite the snapshot ``path`` without its runs of 4096 or more zero bytes; returns its
    new size. Layout (little-endian): ``GKZR``, the full length (u32), the number of runs
    (u32), each run's offset and length (u32 pairs, ascending), then the other bytes in order.
    Half of a snapshot's memory is such runs (never-used heap, zeroed free blocks): without
    them the browser decodes, moves and copies half the bytes (ADR 0033)."""
    data = path.read_bytes()
    runs = [(m.start(), m.end() - m.start()) for m in re.finditer(b"\0{%d,}" % _MIN_ZERO_RUN, data)]
    kept, at = [], 0
    for start, length in runs:
        kept.append(data[at:start])
        at = start + length
    kept.append(data[at:])
    header = struct.pack(
        f"<4sII{2 * len(runs)}I",
        ZERO_RUNS_MAGIC,
        len(data),
        len(runs),
        *(n for run in runs for n in run),
    )
    path.write_bytes(header + b"".join(kept))
    return path.stat().st_size


def gzip_file(path: Path) -> Path:
    """Replace ``path`` by ``path.gz`` (gzip -9, mtime 0: the same bytes on every build)."""
    packed = path.with_name(path.name + ".gz")
    packed.write_bytes(gzip_bytes(path.read_bytes()))
    path.unlink()
    return packed


def trim_stdlib(full: Path, out: Path, modules: list[str]) -> int:
    """Write ``out``: the entries of the standard library zip ``full`` that are ``modules``
    (as ``name.py`` or ``name/__init__.py``, with their folders), in the original order."""
    wanted: set[str] = set()
    for name in modules:
        path = name.replace(".", "/")
        wanted.update((f"{path}.py", f"{path}/__init__.py", f"{path}/"))
    with zipfile.ZipFile(full) as src, zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as dst:
        for info in src.infolist():
            if info.filename in wanted:
                dst.writestr(info, src.read(info), zipfile.ZIP_DEFLATED, 9)
    return out.stat().st_size
