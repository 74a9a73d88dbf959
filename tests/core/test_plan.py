"""The planner's choice: which scoring path actually ran for designed queries, and its cache."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import FrozenInstanceError

import pytest
from test_bm25_paths import PUMP_ROOM, exhaustive, needs_numpy, pairs
from test_retrieval import load

from groundkit.index.bm25 import BM25Index
from groundkit.index.cache import BoundedCache
from groundkit.index.lexical_plan import DEFAULT_PLAN, PATHS
from groundkit.store import MemoryStore
from groundkit.store.protocols import TieKey

PYTHON = frozenset({"python", "python-filtered", "python-maxscore", "python-packed"})
NUMPY = frozenset({"python", "python-filtered", "python-maxscore", "numpy-dense", "numpy-sparse"})


@pytest.mark.parametrize(
    ("stats", "available", "want"),
    [
        (
            {"terms": 3, "postings": 900, "k": 10, "slots": 1000},
            PYTHON,
            ("python-packed", "python"),
        ),
        ({"terms": 3, "postings": 200, "k": 10, "slots": 1000}, PYTHON, ("python",)),
        ({"terms": 1, "postings": 900, "k": 10, "slots": 1000}, PYTHON, ("python",)),
        (
            {"terms": 2, "postings": 60_000, "k": 10, "slots": 30_000},
            PYTHON,
            ("python-packed", "python-maxscore", "python"),
        ),
        (
            {"terms": 2, "postings": 60_000, "k": 10, "slots": 100_000},
            PYTHON - {"python-packed"},
            ("python-maxscore", "python"),
        ),
        (
            {"terms": 2, "postings": 60_000, "k": 101, "slots": 100_000},
            PYTHON - {"python-packed"},
            ("python",),
        ),
        ({"terms": 3, "postings": 900, "k": 10, "slots": 1000}, NUMPY, ("numpy-dense",)),
        ({"terms": 3, "postings": 249, "k": 10, "slots": 1000}, NUMPY, ("numpy-sparse",)),
    ],
)
def test_the_plan_orders_the_paths_for_designed_query_shapes(
    stats: dict[str, int], available: frozenset[str], want: tuple[str, ...]
) -> None:
    assert DEFAULT_PLAN.paths(**stats, filtered=False, available=available) == want
    filtered = DEFAULT_PLAN.paths(**stats, filtered=True, available=available)
    assert filtered == ("python-filtered",)
    assert set(want) <= set(PATHS)


def test_the_plan_is_frozen() -> None:
    with pytest.raises(FrozenInstanceError):
        DEFAULT_PLAN.pruning_max_k = 5  # type: ignore[misc]


class WideReader:
    """A designed read view too large to pack (70,000 chunks): "even" is in every other chunk,
    "third" in every third, "rare" three times in each of chunks 0-4."""

    chunk_count = 70_000
    total_length = 10 * 70_000

    def chunk_lengths(self) -> Iterator[tuple[int, int]]:
        return ((key, 10) for key in range(self.chunk_count))

    def stored_idf(self) -> None:
        return None

    def postings(self, term: str) -> Sequence[tuple[int, int]]:
        step = {"even": 2, "third": 3}.get(term)
        if step is not None:
            return [(key, 1) for key in range(0, self.chunk_count, step)]
        return [(key, 3) for key in range(5)] if term == "rare" else []


def by_key(keys: Sequence[int]) -> dict[int, TieKey]:
    return {key: ("", key, "") for key in keys}


def test_the_default_plan_runs_the_designed_path() -> None:
    """Under the default plan, each designed query is answered by the path meant for it, and
    exactly as exhaustive scoring ranks it."""
    store = MemoryStore()
    load(store, PUMP_ROOM)
    reader = store.reader()
    python = BM25Index(reader, accelerator="python")
    for query, k, allowed, want in [
        (["pump"], 3, None, "python"),  # one term: nothing to prune or pack
        (["pump", "valve", "seal"], 3, None, "python-packed"),  # postings cover the chunks
        (["rare", "valve"], 10, None, "python"),  # too few postings to pay for packing
        (["pump", "valve"], 3, frozenset(range(0, 42, 2)), "python-filtered"),
    ]:
        hits = python.top_k(query, k, reader.tie_keys, allowed=allowed)
        assert hits.path == want, query
        if allowed is None:
            assert pairs(hits) == exhaustive(python, query, k, store)
    wide = BM25Index(WideReader(), accelerator="python")  # type: ignore[arg-type]
    hits = wide.top_k(["rare", "even", "third"], 5, by_key)
    assert hits.path == "python-maxscore"
    scores = wide.score(["rare", "even", "third"])
    assert pairs(hits) == sorted(scores.items(), key=lambda item: (-item[1], item[0]))[:5]


@needs_numpy
def test_the_default_plan_picks_dense_or_sparse_numpy_sums() -> None:
    store = MemoryStore()
    load(store, PUMP_ROOM)
    reader = store.reader()
    python = BM25Index(reader, accelerator="python")
    index = BM25Index(reader, accelerator="numpy")
    for query, want in [(["pump", "valve", "seal"], "numpy-dense"), (["rare"], "numpy-sparse")]:
        hits = index.top_k(query, 4, reader.tie_keys)
        assert hits.path == want
        assert pairs(hits) == pairs(python.top_k(query, 4, reader.tie_keys))


def test_a_bounded_cache_starts_over_when_full() -> None:
    cache: BoundedCache[str, int] = BoundedCache(5)
    cache.put("a", 1, cost=3)
    assert cache.get("a") == 1 and cache.held == 3
    cache.put("b", 2, cost=3)  # 6 > 5: starts over
    assert "a" not in cache and cache["b"] == 2 and cache.held == 3
    assert cache.get("a") is None
    cache.put_many({"c": 3, "d": 4}, keep=["b"])  # 3 + 2 = 5: fits
    assert len(cache) == 3
    cache.put_many({"e": 5}, keep=["d", "x"])  # over: keeps "d" (and only that), adds "e"
    assert dict(cache.view()) == {"d": 4, "e": 5} and cache.held == 2
