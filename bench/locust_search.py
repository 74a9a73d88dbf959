"""The locust user of ``bench/serve_locust.py``: REST searches of the synthetic queries.

Each user sends ``GET /v1/search`` at a fixed rate (``GROUNDKIT_LOCUST_RATE`` requests a second,
default 2); a reply that is not a 200 with a JSON body holding ``results`` and ``generation``
counts as a failure.
"""

from __future__ import annotations

import itertools
import os
import sys
from pathlib import Path

from locust import HttpUser, constant_throughput, task

sys.path.insert(0, str(Path(__file__).resolve().parent))

from synthetic import queries

QUERIES = queries(500)
_OFFSETS = itertools.count(0, 61)


class Searcher(HttpUser):
    """One visitor searching at a fixed pace."""

    wait_time = constant_throughput(float(os.environ.get("GROUNDKIT_LOCUST_RATE", "2")))

    def on_start(self) -> None:
        self.next_query = next(_OFFSETS)

    @task
    def search(self) -> None:
        query = QUERIES[self.next_query % len(QUERIES)]
        self.next_query += 1
        with self.client.get(
            "/v1/search", params={"q": query, "top_k": 10}, name="/v1/search", catch_response=True
        ) as reply:
            if reply.status_code != 200:
                reply.failure(f"{reply.status_code} {reply.text[:200]}")
                return
            body = reply.json()
            if "results" not in body or "generation" not in body:
                reply.failure(f"no results or generation in {reply.text[:200]}")
