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
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import httpx

import groundkit
from serve_common import HERE, run_and_report, start_ingest, start_server
from synthetic import write_corpus


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
    server, url = start_server(index, args.workers, timeout_s=60)
    try:
        httpx.get(url + "/v1/search", params={"q": "warm"}, timeout=60).raise_for_status()
        quiet = locust_phase(url, args, workdir / "quiet")
        verify = VerifyLoop(url)
        deadline = time.time() + args.seconds + 5
        ingest = start_ingest(extra, index, deadline, args.batch, seed=5000)
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
    result = run_and_report(run, args)
    failed = (
        result["quiet"]["failures"] or result["loaded"]["failures"] or result["verify_errors"]
        or result["ingest_exit"] != 0 or result["loaded_p99_over_quiet_p99"] > args.p99_ratio
    )  # fmt: skip
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
