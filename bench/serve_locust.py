"""``groundkit serve`` under locust: 16 searching clients, quiet and then while a verify of the
whole collection and an ingest run, on 127.0.0.1.

    python bench/serve_locust.py                      # 2,000 files, 16 users, 30 s a phase
    python bench/serve_locust.py --files 200 --seconds 10   # quick

Needs the serve extra, httpx and locust (``pip install ".[serve]" httpx locust``). Two phases on
one server: *quiet* (searches only), then *loaded* (the same searches, while one client verifies
the whole collection over and over through ``POST /v1/verify`` and another process ingests new
files into the collection). Locust runs headless with ``--csv``; its aggregated row gives each
phase's requests, failures and p50/p99. The exit status is 1 when a phase had an error, a verify
or the ingest failed, or the loaded p99 is over ``--p99-ratio`` times the quiet one.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import platform
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx

import groundkit
from synthetic import write_corpus

HERE = Path(__file__).resolve().parent

INGEST = """
import sys, time
from pathlib import Path
sys.path.insert(0, sys.argv[1])
import groundkit
from synthetic import write_corpus
extra, index, deadline, batch = Path(sys.argv[2]), sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
added = batches = 0
while time.time() < deadline:
    folder = extra / f"batch{batches:04}"
    write_corpus(folder, batch, seed=5000 + batches)
    added += len(groundkit.ingest(folder, index_dir=index).indexed)
    batches += 1
print(added)
"""


def start_server(index: Path, workers: int) -> tuple[subprocess.Popen[str], str]:
    command = [sys.executable, "-m", "groundkit", "serve", "--http", "--port", "0",
               "--index-dir", str(index), "--workers", str(workers), "--timeout", "60"]  # fmt: skip
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


def locust_phase(url: str, args: argparse.Namespace, prefix: Path) -> dict[str, Any]:
    """One headless locust run; its aggregated row as numbers."""
    command = [sys.executable, "-m", "locust", "-f", str(HERE / "locust_search.py"), "--headless",
               "--users", str(args.users), "--spawn-rate", str(args.users),
               "--run-time", f"{int(args.seconds)}s", "--host", url, "--csv", str(prefix),
               "--only-summary", "--loglevel", "WARNING", "--stop-timeout", "10"]  # fmt: skip
    env = {**os.environ, "GROUNDKIT_LOCUST_RATE": str(args.rate)}
    done = subprocess.run(
        command, check=False, env=env, capture_output=True, text=True, timeout=args.seconds + 120
    )
    rows = list(csv.DictReader(prefix.with_name(prefix.name + "_stats.csv").open(encoding="utf-8")))
    total = next(row for row in rows if row["Name"] == "Aggregated")
    failures_csv = prefix.with_name(prefix.name + "_failures.csv")
    return {
        "locust_exit": done.returncode,
        "requests": int(total["Request Count"]),
        "failures": int(total["Failure Count"]),
        "throughput_per_s": round(float(total["Requests/s"]), 1),
        "p50_ms": float(total["50%"]),
        "p99_ms": float(total["99%"]),
        "max_ms": round(float(total["Max Response Time"]), 1),
        "first_failures": failures_csv.read_text(encoding="utf-8").splitlines()[1:4]
        if failures_csv.is_file()
        else [],
    }


class VerifyLoop(threading.Thread):
    """Verifies the whole collection over REST until stopped, counting runs and errors."""

    def __init__(self, url: str) -> None:
        super().__init__(daemon=True)
        self.url = url
        self.stop = threading.Event()
        self.runs = self.checked = 0
        self.errors: list[str] = []

    def run(self) -> None:
        with httpx.Client(timeout=300) as client:
            while not self.stop.is_set():
                reply = client.post(self.url + "/v1/verify", json={})
                if reply.status_code != 200:
                    self.errors.append(f"{reply.status_code} {reply.text[:200]}")
                    continue
                self.runs += 1
                self.checked = reply.json()["checked"]


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    corpus, index, extra = workdir / "corpus", workdir / "index", workdir / "added"
    if not (index / "default" / "collection.sqlite").is_file():
        write_corpus(corpus, args.files)
        groundkit.ingest(corpus, index_dir=index)
    load = os.getloadavg()
    server, url = start_server(index, args.workers)
    try:
        httpx.get(url + "/v1/search", params={"q": "warm"}, timeout=60).raise_for_status()
        quiet = locust_phase(url, args, workdir / "quiet")
        verify = VerifyLoop(url)
        deadline = time.time() + args.seconds + 5
        ingest = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(INGEST), str(HERE), str(extra), str(index),
             str(deadline), str(args.batch)],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )  # fmt: skip
        verify.start()
        loaded = locust_phase(url, args, workdir / "loaded")
        verify.stop.set()
        verify.join(timeout=300)
        added, ingest_err = ingest.communicate(timeout=600)
    finally:
        server.terminate()
        server.wait(timeout=30)
    ratio = loaded["p99_ms"] / quiet["p99_ms"] if quiet["p99_ms"] else float("inf")
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_at_start": [round(x, 2) for x in load],
        },
        "setup": {
            "files": args.files,
            "users": args.users,
            "rate_per_user": args.rate,
            "seconds": args.seconds,
            "server_workers": args.workers,
        },
        "quiet": quiet,
        "loaded": loaded,
        "loaded_p99_over_quiet_p99": round(ratio, 2),
        "verify_runs": verify.runs,
        "verify_chunks_checked": verify.checked,
        "verify_errors": verify.errors[:3],
        "ingest_exit": ingest.returncode,
        "ingest_documents_added": int(added.strip() or 0) if ingest.returncode == 0 else None,
        "ingest_stderr_tail": ingest_err[-300:] if ingest.returncode else "",
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2_000, help="files (4 chunks each)")
    parser.add_argument("--users", type=int, default=16, help="locust users (searching clients)")
    parser.add_argument("--rate", type=float, default=2.0, help="searches a second per user")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=4, help="the server's --workers")
    parser.add_argument("--batch", type=int, default=20, help="files per ingest during the load")
    parser.add_argument("--p99-ratio", type=float, default=3.0, help="the loaded/quiet p99 bar")
    parser.add_argument("--workdir", type=Path, default=None, help="keep (and reuse) data here")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()
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
    failed = (
        result["quiet"]["failures"] or result["loaded"]["failures"] or result["verify_errors"]
        or result["ingest_exit"] != 0 or result["loaded_p99_over_quiet_p99"] > args.p99_ratio
    )  # fmt: skip
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
