"""Filters and rerank over shards answer exactly as over one collection (issue 19).

A filter is applied in every shard before the merge (each shard admits the chunks one
collection would); a rerank runs once, after the merge, over the merged candidates.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import groundkit
from groundkit.config import ChunkerSettings, IngestSettings
from groundkit.retrieval import Searcher
from groundkit.retrieval.request import SearchFilter
from groundkit.retrieval.rerank import LogitReranker
from groundkit.shards import ingest_sharded

VOCABULARY = ["pump", "valve", "leak", "meter", "pipe", "water", "flow", "rate", "main", "zone"]
HEADINGS = ["Pumps", "Valves", "Meters"]
SETTINGS = IngestSettings(chunker=ChunkerSettings(target_chars=64, overlap_chars=0))

words = st.sampled_from(VOCABULARY)
paragraph = st.lists(words, min_size=1, max_size=12).map(" ".join)
section = st.tuples(st.sampled_from(HEADINGS), paragraph).map(lambda s: f"# {s[0]}\n\n{s[1]}")
document = st.lists(section, min_size=1, max_size=3).map("\n\n".join)
corpora = st.lists(document, min_size=1, max_size=12)
queries = st.lists(st.sampled_from([*VOCABULARY, "absent"]), min_size=1, max_size=3).map(" ".join)
filters = st.one_of(
    st.none(),
    st.sampled_from(["part0/", "part1/", "part2/doc00", "nowhere/"]).map(
        lambda prefix: SearchFilter(source_prefix=prefix)
    ),
    st.sampled_from(HEADINGS).map(lambda h: SearchFilter(metadata={"heading_path": h})),
    st.sampled_from(HEADINGS).map(
        lambda h: SearchFilter(source_prefix="part1/", metadata={"heading_path": h})
    ),
)


def _logits(query: str, passages: Sequence[str]) -> list[float]:
    """A deterministic cross-encoder stand-in: shared words, then shorter passages first."""
    asked = set(query.split())
    return [len(asked & set(p.split())) - len(p) / 1000.0 for p in passages]


def _write(root: Path, texts: list[str]) -> Path:
    corpus = root / "corpus"
    for number, text in enumerate(texts):
        path = corpus / f"part{number % 3}" / f"doc{number:03d}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return corpus


def _answer(response: groundkit.SearchResponse) -> list[tuple[str, str, dict[str, object]]]:
    return [(r.chunk_id, r.score.hex(), r.to_dict()) for r in response.results]


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    texts=corpora,
    shards=st.integers(1, 4),
    searches=st.lists(
        st.tuples(
            queries,
            st.integers(1, 12),
            st.sampled_from(["bm25", "dense", "hybrid"]),
            filters,
            st.booleans(),
        ),
        min_size=1,
        max_size=5,
    ),
)
def test_shard_filters_and_rerank_match_one_collection(
    texts: list[str], shards: int, searches: list[tuple[str, int, str, SearchFilter | None, bool]]
) -> None:
    hashing = groundkit.get_embedder("hash")
    reranker = LogitReranker(_logits)
    with tempfile.TemporaryDirectory() as work:
        root = Path(work)
        corpus = _write(root, texts)
        index = root / "index"
        groundkit.ingest(
            corpus, index_dir=index, collection="one", settings=SETTINGS, embedder=hashing
        )
        ingest_sharded(
            corpus,
            shards=shards,
            index_dir=index,
            collection="many",
            settings=SETTINGS,
            embedder=hashing,
        )
        with (
            groundkit.Searcher.open(index, "one", reranker=reranker) as one,
            Searcher.open(index, "many", reranker=reranker) as many,
        ):
            for query, k, mode, where, rerank in searches:
                got = many.search(query, k, mode, where=where, rerank=rerank)  # type: ignore[arg-type]
                want = one.search(query, k, mode, where=where, rerank=rerank)  # type: ignore[arg-type]
                assert _answer(got) == _answer(want)
                own = {"timings_ms", "generation", "path", "accelerator"}  # adr/0028
                assert {k: v for k, v in got.metadata.items() if k not in own} == {
                    k: v for k, v in want.metadata.items() if k not in own
                }


def test_shard_filter_admits_only_matching_chunks(tmp_path: Path) -> None:
    texts = ["# Pumps\n\npump leak", "# Valves\n\nvalve leak", "# Pumps\n\nleak leak pump"] * 2
    corpus = _write(tmp_path, texts)
    index = tmp_path / "index"
    groundkit.ingest(corpus, index_dir=index, collection="one", settings=SETTINGS)
    ingest_sharded(corpus, shards=3, index_dir=index, collection="many", settings=SETTINGS)
    where = SearchFilter(metadata={"heading_path": "Pumps"})
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "many") as many,
    ):
        got = many.search("leak", 10, "bm25", where=where)
        assert got.results and all("Pumps" in r.metadata["heading_path"] for r in got.results)
        assert len(got.results) == 4
        assert _answer(got) == _answer(one.search("leak", 10, "bm25", where=where))
        assert got.metadata["filter"]["chunks"] == 4
