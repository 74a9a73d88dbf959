"""``groundkit serve`` under locust, for each ``--processes`` asked (side by side in one run):
searching clients, quiet and then while a verify of the whole collection and an ingest run, on
127.0.0.1.

    python bench/serve_locust.py                      # 2,000 files, 16 users, 30 s a phase
    python bench/serve_locust.py --files 200 --seconds 10   # quick
    python bench/serve_locust.py --processes 1,2 --users 64 --rate 1000   # req/s, 1 vs 2

With ``--processes 1,2`` each configuration serves its own copy of the same index (the ingest
of one phase does not grow the other's) and the result gives each one's figures and the
quiet-phase req/s of the last over the first (``speedup``). A high ``--rate`` makes every user
send as fast as it is answered, so req/s is the server's capacity; a machine shared with other
work understates it (the result records the load average).

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
import shutil
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


def one_configuration(
    args: argparse.Namespace, workdir: Path, index: Path, processes: int
) -> dict[str, Any]:
    """Both phases against ``--processes processes`` over a fresh copy of ``index``."""
    served = workdir / f"index-p{processes}"
    if served.exists():
        shutil.rmtree(served)
    shutil.copytree(index, served)  # copy2: times kept, so the stamps still match
    server, url = start_server(served, args.workers, timeout_s=args.timeout, processes=processes)
    try:
        httpx.get(url + "/v1/search", params={"q": "warm"}, timeout=60).raise_for_status()
        quiet = locust_phase(url, args, workdir / f"quiet-p{processes}")
        verify = VerifyLoop(url)
        deadline = time.time() + args.seconds + 5
        extra = workdir / f"added-p{processes}"
        ingest = start_ingest(extra, served, deadline, args.batch, seed=5000)
        verify.start()
        loaded = locust_phase(url, args, workdir / f"loaded-p{processes}")
        verify.stop.set()
        verify.join(timeout=300)
        added, ingest_err = ingest.communicate(timeout=600)
    finally:
        server.terminate()
        server.wait(timeout=30)
    ratio = loaded["p99_ms"] / quiet["p99_ms"] if quiet["p99_ms"] else float("inf")
    return {
        "processes": processes,
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


def run(args: argparse.Namespace, workdir: Path) -> dict[str, Any]:
    corpus, index = workdir / "corpus", workdir / "index"
    if not (index / "default" / "collection.sqlite").is_file():
        write_corpus(corpus, args.files)
        groundkit.ingest(corpus, index_dir=index)
    load = os.getloadavg()
    configurations = [one_configuration(args, workdir, index, n) for n in args.processes]
    first, last = configurations[0]["quiet"], configurations[-1]["quiet"]
    speedup = last["throughput_per_s"] / first["throughput_per_s"] if first["requests"] else 0.0
    return {
        "machine": {
            "python": platform.python_version(),
            "platform": platform.platform(),
            "cpus": os.cpu_count(),
            "load_average_at_start": [round(x, 2) for x in load],
            "load_average_at_end": [round(x, 2) for x in os.getloadavg()],
        },
        "setup": {
            "files": args.files,
            "users": args.users,
            "rate_per_user": args.rate,
            "seconds": args.seconds,
            "server_workers": args.workers,
            "server_timeout_s": args.timeout,
        },
        "configurations": configurations,
        "speedup": round(speedup, 2),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=2_000, help="files (4 chunks each)")
    parser.add_argument("--users", type=int, default=16, help="locust users (searching clients)")
    parser.add_argument("--rate", type=float, default=2.0, help="searches a second per user")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of each phase")
    parser.add_argument("--workers", type=int, default=4, help="the server's --workers")
    parser.add_argument(
        "--processes",
        type=lambda text: [int(n) for n in text.split(",")],
        default=[1],
        help="the server's --processes, comma-separated to run each in turn (e.g. 1,2)",
    )
    parser.add_argument("--timeout", type=float, default=10.0, help="the server's --timeout")
    parser.add_argument("--batch", type=int, default=20, help="files per ingest during the load")
    parser.add_argument("--p99-ratio", type=float, default=3.0, help="the loaded/quiet p99 bar")
    parser.add_argument("--workdir", type=Path, default=None, help="keep (and reuse) data here")
    parser.add_argument("--json", type=Path, default=None, help="also write the result here")
    args = parser.parse_args()
    result = run_and_report(run, args)
    failed = any(
        one["quiet"]["failures"] or one["loaded"]["failures"] or one["verify_errors"]
        or one["ingest_exit"] != 0 or one["loaded_p99_over_quiet_p99"] > args.p99_ratio
        for one in result["configurations"]
    )  # fmt: skip
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
