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
import zipfile
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


def make_snapshot(pyodide_dir: Path, wheel: Path, out: Path) -> list[str]:
    """Write ``out``: the snapshot of ``pyodide_dir``'s runtime with ``wheel`` imported.
    Returns the modules the restored worker can import that the snapshot does not hold."""
    node = check_snapshot_tools()
    try:
        done = subprocess.run(
            [node, str(_SCRIPT), str(pyodide_dir), str(wheel), str(out), str(_APP)],
            capture_output=True,
            text=True,
            timeout=_TIMEOUT_S,
            check=False,
        )
    except subprocess.TimeoutExpired as exc:
        raise GroundkitError(f"--snapshot: Node.js ran past {_TIMEOUT_S} s") from exc
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-6:])
        raise GroundkitError(f"--snapshot: making the memory snapshot failed:\n{tail}")
    made = json.loads(done.stdout.strip().splitlines()[-1])
    held = set(made["imported"])  # in the snapshot's memory already: never read from the zip
    return [str(name) for name in made["modules"] if name not in held]


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
