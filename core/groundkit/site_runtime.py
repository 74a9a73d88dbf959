"""``build-site --snapshot``: Pyodide's memory snapshot with groundkit imported, made in Node.js.

The page's worker restores it instead of starting Python and importing groundkit (ADR 0019).
A snapshot only restores into the exact runtime build that made it, so it is made from the
site's own copy of the runtime (``--pyodide-dir``).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

from groundkit.errors import ConfigurationError, GroundkitError

__all__ = ["SNAPSHOT_FILE", "make_snapshot"]

SNAPSHOT_FILE = "snapshot.bin"
_SCRIPT = Path(__file__).resolve().parent / "web_app" / "make_snapshot.mjs"
_TIMEOUT_S = 600


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


def make_snapshot(pyodide_dir: Path, wheel: Path, out: Path) -> int:
    """Write the snapshot of ``pyodide_dir``'s runtime with ``wheel`` imported; its size."""
    node = check_snapshot_tools()
    try:
        done = subprocess.run(
            [node, str(_SCRIPT), str(pyodide_dir), str(wheel), str(out)],
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
    return int(json.loads(done.stdout.strip().splitlines()[-1])["bytes"])
