"""What the service benchmarks share: a ``groundkit serve --http`` process on 127.0.0.1, and an
ingest that keeps adding synthetic files to its collection until a deadline."""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import textwrap
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

_INGEST = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import groundkit
from synthetic import write_corpus
extra, index, deadline, batch, seed = (Path(sys.argv[2]), sys.argv[3], float(sys.argv[4]),
                                       int(sys.argv[5]), int(sys.argv[6]))
added = batches = 0
while time.time() < deadline:
    folder = extra / f"batch{batches:04}"
    write_corpus(folder, batch, seed=seed + batches)
    added += len(groundkit.ingest(folder, index_dir=index).indexed)
    batches += 1
print(added)
"""


def start_server(
    index: Path, workers: int, timeout_s: float = 30.0, processes: int = 1
) -> tuple[subprocess.Popen[str], str]:
    """``groundkit serve --http`` on a free port; the process and its URL once it listens."""
    command = [sys.executable, "-m", "groundkit", "serve", "--http", "--port", "0",
               "--index-dir", str(index), "--workers", str(workers),
               "--timeout", str(timeout_s), "--processes", str(processes)]  # fmt: skip
    process = subprocess.Popen(
        command, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True
    )
    stderr = process.stderr
    assert stderr is not None
    for line in stderr:
        if "listening on " in line:
            threading.Thread(target=stderr.read, daemon=True).start()  # drain it
            return process, line.split("listening on ", 1)[1].split()[0].rstrip('",')
    raise SystemExit(f"the server did not start (exit {process.wait()})")


def start_ingest(
    extra: Path, index: Path, deadline: float, batch: int, seed: int
) -> subprocess.Popen[str]:
    """Another process ingesting ``batch`` new files at a time into ``index`` until
    ``deadline`` (``time.time()``); it prints how many it added."""
    return subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(_INGEST), str(HERE), str(extra), str(index),
         str(deadline), str(batch), str(seed)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def run_and_report(
    run: Callable[[argparse.Namespace, Path], dict[str, Any]], args: argparse.Namespace
) -> dict[str, Any]:
    """``run(args, workdir)`` in ``--workdir`` (kept) or a temporary folder; the result is
    printed as JSON and, with ``--json FILE``, written there too."""
    if args.workdir:
        args.workdir.mkdir(parents=True, exist_ok=True)
        result = run(args, args.workdir)
    else:
        with tempfile.TemporaryDirectory() as tmp:
            result = run(args, Path(tmp))
    text = json.dumps(result, indent=2)
    print(text)
    if args.json:
        args.json.write_text(text + "\n", encoding="utf-8")
    return result
