"""Every BM25 scoring path gives the exact top-k of exhaustive scoring, bit for bit.

The numpy accelerator is optional: its half of these tests skips where numpy is absent (the
``core`` tox env) and runs in the ``accel`` env.
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_retrieval import load

from groundkit.config import BM25Params
from groundkit.errors import ConfigurationError
from groundkit.index.bm25 import BM25Index, LexicalHits, numpy_available
from groundkit.index.lexical_plan import DEFAULT_PLAN, LexicalPlan
from groundkit.index.ties import CachedTieKeys, TieKeys
from groundkit.retrieval import Searcher
from groundkit.store import MemoryStore
from groundkit.store.protocols import CollectionReader

WORDS = st.sampled_from([f"w{i}" for i in range(12)])
PASSAGE = st.lists(WORDS, min_size=1, max_size=15).map(" ".join)
CORPUS = st.lists(st.lists(PASSAGE, min_size=1, max_size=4), min_size=1, max_size=25)
PARAMS = st.builds(
    BM25Params, k1=st.sampled_from([0.0, 0.9, 1.2, 2.0]), b=st.sampled_from([0.0, 0.4, 0.75, 1.0])
)
TIE_SOURCES = st.sampled_from(["fetch", "cached", "ranks"])
PYTHON_PATHS = st.sampled_from(["python", "python-maxscore", "python-packed", "coarse"])
"""Which pure-Python path to force; "coarse" packs at 6 fraction bits, so that many totals
are near (or at) the k-th and the re-scoring margin decides what is kept."""
needs_numpy = pytest.mark.skipif(not numpy_available(), reason="numpy is not installed here")


def tie_keys_for(reader: CollectionReader, source: str) -> TieKeys:
    """The reader's own tie keys, cached ones, or cached ones with view-wide ranks."""
    if source == "fetch":
        return reader.tie_keys
    if source == "ranks":
        return CachedTieKeys.of(reader, rank_after=0)  # ranked at the first tie
    never_ranked = replace(DEFAULT_PLAN, tie_ranks_max_chunks=-1)
    return CachedTieKeys.of(reader, plan=never_ranked)


def forced(path: str, plan: LexicalPlan = DEFAULT_PLAN) -> LexicalPlan:
    """A plan under which ``BM25Index.top_k`` tries ``path`` first on any corpus."""
    if path == "python-maxscore":
        return replace(plan, packed_max_chunks=0, pruning_min_postings=0)
    if path in ("python-packed", "coarse"):
        plan = replace(plan, packed_slots_per_posting=10**9, packed_rescores_per_hit=0)
        return replace(plan, packed_fraction_bits=6) if path == "coarse" else plan
    return replace(plan, packed_max_chunks=0)


def pairs(hits: LexicalHits) -> list[tuple[int, float]]:
    got = hits.pairs()
    assert all(type(key) is int and type(score) is float for key, score in got)
    return got


def exhaustive(
    index: BM25Index, terms: list[str], k: int, store: MemoryStore
) -> list[tuple[int, float]]:
    """Score every chunk, then sort all of them by score and tie key: the reference top-k."""
    reader = store.reader()
    scores = index.score(terms)
    ties = reader.tie_keys(list(scores))
    return sorted(scores.items(), key=lambda item: (-item[1], ties[item[0]], item[0]))[:k]


@settings(max_examples=150, deadline=None)
@given(
    CORPUS,
    st.lists(WORDS, min_size=1, max_size=6),
    st.integers(1, 30),
    PARAMS,
    PYTHON_PATHS,
    st.booleans(),
    TIE_SOURCES,
)
def test_python_top_k_equals_exhaustive_scoring(
    docs: list[list[str]],
    query: list[str],
    k: int,
    params: BM25Params,
    path: str,
    as_lists: bool,
    tie_source: str,
) -> None:
    store = MemoryStore()
    load(store, docs)
    reader = store.reader()
    plan = forced(path, replace(DEFAULT_PLAN, lists_max_chunks=10**9 if as_lists else 0))
    index = BM25Index(reader, params, accelerator="python", plan=plan)
    hits = index.top_k(query, k, tie_keys_for(reader, tie_source))
    assert pairs(hits) == exhaustive(index, query, k, store)


@needs_numpy
@settings(max_examples=120, deadline=None)
@given(
    CORPUS,
    st.lists(WORDS, min_size=1, max_size=6),
    st.integers(1, 30),
    PARAMS,
    st.none() | st.floats(0, 3),
    st.sampled_from([0, 10**9]),
    TIE_SOURCES,
)
def test_numpy_top_k_is_bit_identical_to_python(
    docs: list[list[str]],
    query: list[str],
    k: int,
    params: BM25Params,
    threshold: float | None,
    sparse_ratio: int,
    tie_source: str,
) -> None:
    store = MemoryStore()
    load(store, docs)
    reader = store.reader()
    python = BM25Index(reader, params, accelerator="python")
    plan = replace(DEFAULT_PLAN, numpy_sparse_ratio=sparse_ratio)  # 0: sparse, 10**9: dense
    accelerated_index = BM25Index(reader, params, accelerator="numpy", plan=plan)
    assert accelerated_index.accelerator == "numpy"
    want = python.top_k(query, k, reader.tie_keys, score_threshold=threshold)
    got = accelerated_index.top_k(
        query, k, tie_keys_for(reader, tie_source), score_threshold=threshold
    )
    dense = sparse_ratio > 0 and bool(python.score(query))  # no postings: 0 < any slot count
    assert got.path == ("numpy-dense" if dense else "numpy-sparse")
    assert pairs(got) == pairs(want)  # same keys, same order, scores equal (no tolerance)


def test_maxscore_prunes_and_stays_exact() -> None:
    """A rare term fills the top k, so the common terms are only looked up, not scanned."""
    common = [["the pump", "a pump valve", "pump valve"][n % 3] for n in range(300)]
    docs = [[text] for text in common] + [["rare rare pump"], ["rare valve"]]
    store = MemoryStore()
    load(store, docs)
    reader = store.reader()
    query = ["rare", "pump", "valve"]
    index = BM25Index(reader, accelerator="python", plan=forced("python-maxscore"))
    hits = index.top_k(query, 2, reader.tie_keys)
    assert hits.path == "python-maxscore"
    assert pairs(hits) == exhaustive(index, query, 2, store)


PUMP_ROOM = [
    [["pump valve seal", "valve seal", "main pump", "seal"][n % 4] + " pump" * (n % 3)]
    for n in range(40)
] + [["rare valve pump"], ["rare rare seal"]]


@pytest.mark.parametrize("fraction_bits", [18, 6])
def test_packed_addition_is_taken_on_small_collections_and_stays_exact(
    fraction_bits: int,
) -> None:
    """With these many postings per chunk the default cost rule packs; at 6 fraction bits
    many totals collide, and the re-scoring keeps the cut exact."""
    store = MemoryStore()
    load(store, PUMP_ROOM)
    reader = store.reader()
    index = BM25Index(reader, accelerator="python")
    for query, k in ((["pump", "valve", "seal"], 3), (["rare", "pump", "seal", "seal"], 5)):
        plan = replace(DEFAULT_PLAN, packed_fraction_bits=fraction_bits)
        fresh = BM25Index(reader, accelerator="python", plan=plan)
        hits = fresh.top_k(query, k, reader.tie_keys)
        assert hits.path == "python-packed"
        assert pairs(hits) == exhaustive(index, query, k, store)


@pytest.mark.parametrize(
    ("fraction_bits", "why"),
    [(0, "every term score rounds to 0: no total reaches the margin"), (40, "fields overflow")],
)
def test_packing_steps_aside_when_fixed_point_cannot_decide(fraction_bits: int, why: str) -> None:
    store = MemoryStore()
    load(store, PUMP_ROOM)
    reader = store.reader()
    query = ["pump", "valve", "seal"]
    plan = replace(DEFAULT_PLAN, packed_fraction_bits=fraction_bits)
    index = BM25Index(reader, accelerator="python", plan=plan)
    hits = index.top_k(query, 3, reader.tie_keys)
    assert hits.path == "python", why
    assert pairs(hits) == exhaustive(index, query, 3, store)


def test_auto_uses_numpy_when_it_is_importable_and_the_read_view_is_large_enough() -> None:
    store = MemoryStore()
    load(store, [["a b"]])
    assert BM25Index(store.reader()).accelerator == "python"  # below numpy_min_chunks
    low = replace(DEFAULT_PLAN, numpy_min_chunks=1)
    index = BM25Index(store.reader(), plan=low)
    assert index.accelerator == ("numpy" if numpy_available() else "python")


def test_unknown_or_missing_accelerator_is_a_configuration_error() -> None:
    store = MemoryStore()
    load(store, [["a b"]])
    with pytest.raises(ConfigurationError, match="unknown accelerator"):
        BM25Index(store.reader(), accelerator="gpu")  # type: ignore[arg-type]
    if not numpy_available():
        with pytest.raises(ConfigurationError, match="pip install numpy"):
            BM25Index(store.reader(), accelerator="numpy")


@pytest.mark.parametrize("accelerator", ["python", pytest.param("numpy", marks=needs_numpy)])
def test_a_tied_hit_without_a_record_is_a_key_error(accelerator: str) -> None:
    """Equal scores need tie keys; a chunk the store cannot place must not be ranked silently."""
    store = MemoryStore()
    load(store, [["pump valve"], ["pump valve"], ["valve"]])
    reader = store.reader()
    index = BM25Index(reader, accelerator=accelerator)  # type: ignore[arg-type]
    with pytest.raises(KeyError):
        index.top_k(["pump"], 1, lambda keys: {})
    ranked = CachedTieKeys(lambda keys: {}, every=lambda: (), chunk_count=3, rank_after=0)
    with pytest.raises(KeyError):
        index.top_k(["pump"], 1, ranked)


@pytest.mark.parametrize("accelerator", ["python", pytest.param("numpy", marks=needs_numpy)])
def test_a_full_term_cache_starts_over_and_answers_the_same(accelerator: str) -> None:
    store = MemoryStore()
    load(store, [["pump valve main"], ["valve main"], ["main pump"], ["pump"]] * 3)
    reader = store.reader()
    queries = [["pump", "valve"], ["main"], ["valve", "main", "pump"]]
    want = [exhaustive(BM25Index(reader), q, 5, store) for q in queries]
    tiny = replace(
        forced("python-packed"),
        postings_cache_postings=4,
        term_scores_cache_postings=4,
        numpy_cache_postings=4,
        packed_cache_bytes=4,
        tie_cache_entries=4,
    )
    index = BM25Index(reader, accelerator=accelerator, plan=tiny)  # type: ignore[arg-type]
    tie_keys = CachedTieKeys.of(reader, plan=tiny)
    got = [index.top_k(q, 5, tie_keys).pairs() for q in queries * 2]
    assert got == want * 2


@settings(max_examples=60, deadline=None)
@given(
    CORPUS,
    st.lists(WORDS, min_size=1, max_size=6),
    st.integers(1, 30),
    st.sets(st.integers(0, 120)),
    st.sampled_from(["python", "auto"]),
)
def test_allowed_keys_rank_exactly_the_filtered_exhaustive_scores(
    docs: list[list[str]], query: list[str], k: int, allowed: set[int], accelerator: str
) -> None:
    """A filter keeps every score exact and counts only allowed chunks toward ``k``."""
    store = MemoryStore()
    load(store, docs)
    reader = store.reader()
    index = BM25Index(reader, accelerator=accelerator)  # type: ignore[arg-type]
    hits = index.top_k(query, k, reader.tie_keys, allowed=frozenset(allowed))
    ties = reader.tie_keys(list(index.score(query)))
    expected = sorted(
        ((key, score) for key, score in index.score(query).items() if key in allowed),
        key=lambda item: (-item[1], ties[item[0]], item[0]),
    )[:k]
    assert pairs(hits) == expected
    assert hits.path == "python-filtered"


@settings(max_examples=100, deadline=None)
@given(
    CORPUS,
    st.lists(WORDS, max_size=4),
    st.lists(WORDS, min_size=1, max_size=4),
    st.sampled_from([0.25, 0.5, 1.0]),
    st.integers(1, 30),
    PYTHON_PATHS,
)
def test_a_blended_term_ranks_alike_on_every_path(
    docs: list[list[str]],
    query: list[str],
    members: list[str],
    weight: float,
    k: int,
    path: str,
) -> None:
    """Prefix and typo expansions are blended terms: each path scores them bit-identically."""
    store = MemoryStore()
    load(store, docs)
    reader = store.reader()
    index = BM25Index(reader, accelerator="python", plan=forced(path))
    terms = [*query, BM25Index.blend(members, weight)]
    assert pairs(index.top_k(terms, k, reader.tie_keys)) == exhaustive(index, terms, k, store)
    if numpy_available():
        accelerated = BM25Index(reader, accelerator="numpy")
        want = BM25Index(reader, accelerator="python").top_k(terms, k, reader.tie_keys)
        assert pairs(accelerated.top_k(terms, k, reader.tie_keys)) == pairs(want)


@needs_numpy
def test_a_warmed_retriever_scores_a_small_collection_through_numpy_alike() -> None:
    """``auto`` skips numpy under ``numpy_min_chunks`` (a one-shot process would pay its import
    for one query); a server's ``warm()`` turns it on, with the same results (adr/0047)."""
    store = MemoryStore()
    load(store, [["a b c"], ["b c"], ["c d"], ["b b d"]])
    reader = store.reader()
    index = BM25Index(reader)
    assert index.accelerator == "python"
    before = pairs(index.top_k(["b", "c"], 3, reader.tie_keys))
    assert index.accelerate() == "numpy"
    after = index.top_k(["b", "c"], 3, reader.tie_keys)
    assert after.path.startswith("numpy") and pairs(after) == before
    assert BM25Index(reader, accelerator="python").accelerate() == "python"  # asked for
    with Searcher.of(store.reader()) as retriever:
        assert retriever.search("b c", mode="bm25").metadata["accelerator"] == "python"
        retriever.warm()
        assert retriever.search("b c", mode="bm25").metadata["accelerator"] == "numpy"
