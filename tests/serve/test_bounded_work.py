"""Query expansion's limits over REST (issue 39 item 1, adr/0061): hostile fuzzy queries are
answered or refused at once, and leave no work, threads or memory behind their response."""

from __future__ import annotations

import random
import time
from pathlib import Path

import httpx
import pytest
from serving import Server

TIMEOUT = 30.0
GREEK, CYRILLIC = "αβγδεζηθικλμνξοπρστυφχψω", "абвгдежзийклмнопрстуфхцчшщыэюя"


def hostile_words(count: int, seed: int) -> str:
    rng = random.Random(seed)
    letters = (GREEK, CYRILLIC)
    return " ".join(
        "".join(rng.choice(letters[n % 2]) for _ in range(rng.randint(5, 12))) for n in range(count)
    )


def process_state(pid: int) -> tuple[float, int, int]:
    """(CPU seconds used, threads, resident MiB) of a process, from /proc."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    ticks = 100.0  # USER_HZ on Linux
    cpu = (int(fields[11]) + int(fields[12])) / ticks
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    threads = next(int(line.split()[1]) for line in status if line.startswith("Threads:"))
    rss = next(int(line.split()[1]) for line in status if line.startswith("VmRSS:")) // 1024
    return cpu, threads, rss


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_hostile_fuzzy_queries_are_bounded_and_leave_nothing_running(server: Server) -> None:
    pid = server.process.pid
    search = f"{server.url}/v1/search"
    warm = httpx.post(search, json={"query": "leak", "fuzzy": True}, timeout=TIMEOUT)
    assert warm.status_code == 200
    _, threads_before, _ = process_state(pid)
    refused = [
        ("x" * 4096, "too long for fuzzy search"),
        (hostile_words(75, 1), "at most 64 distinct words"),
    ]
    for query, why in refused:
        reply = httpx.post(search, json={"query": query, "fuzzy": True}, timeout=TIMEOUT)
        assert reply.status_code == 422 and why in reply.json()["message"], reply.text
    for seed in range(4):
        for options in ({"fuzzy": True}, {"fuzzy": True, "prefix": True}):
            body = {"query": hostile_words(60, seed), **options}
            assert httpx.post(search, json=body, timeout=TIMEOUT).status_code == 200
    assert httpx.post(search, json={"query": "lek", "fuzzy": True}, timeout=TIMEOUT).is_success
    cpu, threads, _ = process_state(pid)
    time.sleep(1.0)  # nothing of those requests may still be running
    cpu_after, threads_after, rss_after = process_state(pid)
    assert cpu_after - cpu < 0.3, f"{cpu_after - cpu:.2f} CPU-s spent after every answer"
    assert threads_after <= threads_before + 2, (threads_before, threads, threads_after)
    assert rss_after < 400, f"{rss_after} MiB resident"
