"""Sharded collections built on Ray Data and served on Ray Serve, on a real local Ray instance:
the answers are one collection's, bit for bit; a missing shard fails closed (issue 19)."""

from __future__ import annotations

import json
import sys
import urllib.request
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import groundkit
from groundkit.errors import ShardUnavailableError
from groundkit.retrieval import Searcher
from groundkit.retrieval.request import SearchFilter
from groundkit.retrieval.rerank import LogitReranker
from groundkit.shards import load_manifest

pytestmark = pytest.mark.subprocess

WORDS = ["leak", "pump", "valve", "meter", "water", "main", "zone", "flow", "rate", "boil"]
QUERIES = ["leak water", "pump pump valve", "zone 3 main", "boil notice", "absent words"]


FILTERS = [
    SearchFilter(source_prefix="part1/"),
    SearchFilter(source_prefix="part2/doc01"),
    SearchFilter(source_prefix="nowhere/"),
]


def _logits(query: str, passages: Sequence[str]) -> list[float]:
    """A deterministic cross-encoder stand-in: shared words, then shorter passages first."""
    asked = set(query.split())
    return [len(asked & set(p.split())) - len(p) / 1000.0 for p in passages]


def _answer(response: groundkit.SearchResponse) -> list[tuple[str, str]]:
    return [(r.chunk_id, r.score.hex()) for r in response.results]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("ray") / "docs"
    for number in range(60):
        words = [WORDS[(number * 7 + i * 3) % len(WORDS)] for i in range(3 + number % 9)]
        path = root / f"part{number % 4}" / f"doc{number:03d}.txt"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{' '.join(words)} {number % 5}\n\n{' '.join(reversed(words))}", "utf-8")
    return root


@pytest.fixture(scope="module")
def built(ray_local: Any, corpus: Path) -> Path:
    """The corpus as one collection ("one", dense too) and, built on Ray, a sharded one."""
    from groundkit_ray import build_on_ray

    index = corpus.parent / "index"
    hashing = groundkit.get_embedder("hash")
    groundkit.ingest(corpus, index_dir=index, collection="one", embedder=hashing)
    report = build_on_ray(
        corpus, collection="many", shards=3, index_dir=index, workers=2, embedder="hash"
    )
    assert report.to_dict()["indexed"] == 60
    return index


def test_ray_build_answers_as_one_collection(built: Path) -> None:
    with (
        groundkit.Searcher.open(built, "one") as one,
        Searcher.open(built, "many") as many,
    ):
        assert load_manifest(built, "many").chunk_count == one.reader.chunk_count
        for query in QUERIES:
            for mode in ("bm25", "dense", "hybrid"):
                assert _answer(many.search(query, 10, mode)) == _answer(one.search(query, 10, mode))


def test_ray_build_of_a_jsonl_corpus_and_incremental_update(ray_local: Any, tmp_path: Path) -> None:
    from groundkit_ray import build_on_ray

    jsonl = tmp_path / "corpus.jsonl"
    records = [
        {"_id": f"r{n}", "title": "T", "text": f"leak {WORDS[n % 10]} {n}"} for n in range(9)
    ]
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    index, files = tmp_path / "index", tmp_path / "files"
    first = build_on_ray(jsonl, collection="j", shards=2, index_dir=index, corpus_dir=files)
    assert first.to_dict()["indexed"] == 9
    records[0]["text"] = "pump pump pump"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    second = build_on_ray(jsonl, collection="j", index_dir=index, corpus_dir=files)
    assert (second.to_dict()["replaced"], second.manifest.generation) == (1, 2)
    groundkit.ingest(files, index_dir=index, collection="one")
    with (
        groundkit.Searcher.open(index, "one") as one,
        Searcher.open(index, "j") as many,
    ):
        for query in ["pump", "leak meter", "t"]:
            assert _answer(many.search(query, 5)) == _answer(one.search(query, 5))
        assert all(many.verify(r).ok for r in many.search("leak", 5).results)


def test_ray_serve_scatter_gather_is_bit_identical_and_fails_closed(built: Path) -> None:
    from groundkit_ray import serve_sharded
    from ray import serve

    reranker = LogitReranker(_logits)
    tool = serve_sharded("many", index_dir=built, name="many", timeout_s=20, reranker=reranker)
    with groundkit.Searcher.open(built, "one", reranker=reranker) as one:
        for query in QUERIES:
            for mode in ("bm25", "hybrid"):
                got = tool.search(query, 10, mode)
                assert _answer(got) == _answer(one.search(query, 10, mode))
            for where in FILTERS:  # filtered in every replica, reranked after the merge
                for rerank in (False, True):
                    got = tool.search(query, 6, "hybrid", where=where, rerank=rerank)
                    want = one.search(query, 6, "hybrid", where=where, rerank=rerank)
                    assert _answer(got) == _answer(want)
                    assert got.metadata["filter"] == want.metadata["filter"]
        burst = [tool.search(QUERIES[n % len(QUERIES)], 5) for n in range(40)]  # a bounded load run
        assert all(_answer(r) == _answer(one.search(r.query, 5)) for r in burst)
    serve.delete("many-shard-0001")
    with pytest.raises(ShardUnavailableError, match="shard-0001"):
        tool.search("leak water", 10)
    assert len(load_manifest(built, "many").shards) == 3


def test_ray_serve_behind_the_service_registry(built: Path, corpus: Path) -> None:
    pytest.importorskip("groundkit_serve.tools", exc_type=ImportError)
    import anyio

    from groundkit_ray import serve_sharded
    from groundkit_serve import Registry, Runtime, ServeSettings
    from groundkit_serve.models import SearchArguments

    tool = serve_sharded("many", index_dir=built, name="reg", timeout_s=20)
    registry = Registry(Runtime(ServeSettings(index_dir=built)), sharded=tool, sharded_name="many")

    async def call(query: str, mode: str, verify: bool = False) -> Any:
        request = SearchArguments(query=query, top_k=8, mode=mode, verify=verify, collection="many")  # type: ignore[arg-type]
        return (await registry.call(registry.tools["search"], request)).model_dump()

    changed = corpus / "part1" / "doc001.txt"
    text = changed.read_text(encoding="utf-8")
    try:
        with groundkit.Searcher.open(built, "one") as one:
            for query in QUERIES[:3]:
                for mode in ("bm25", "hybrid"):
                    got = anyio.run(call, query, mode)
                    want = one.search(query, 8, mode)  # type: ignore[arg-type]
                    assert [(r["chunk_id"], r["score"]) for r in got["results"]] == [
                        (r.chunk_id, r.score) for r in want.results
                    ]
            # verify: each result re-read by the replica of the shard that holds it
            changed.write_text("drained", encoding="utf-8")
            for query in QUERIES[:3]:
                got = anyio.run(call, query, "bm25", True)
                want = one.search(query, 8, "bm25")
                assert [(r["source"], r["verification"]) for r in got["results"]] == [
                    (r.citation.source, {"verdict": c.verdict, "reason": c.reason})
                    for r, c in ((r, one.verify(r)) for r in want.results)
                ]
            verdicts = {
                r["verification"]["verdict"]
                for r in anyio.run(call, "leak", "bm25", True)["results"]
            }
            assert verdicts == {"verified", "drifted"}
    finally:
        changed.write_text(text, encoding="utf-8")
        registry.runtime.close()


def test_ray_serve_behind_groundkit_serve(built: Path, ray_local: Any) -> None:
    """`groundkit serve --ray-collection`: a real server process deploys the shards on the
    running Ray instance and answers /v1/search for it over REST as one collection would."""
    pytest.importorskip("groundkit_serve.tools", exc_type=ImportError)
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "serve"))
    from serving import start_server

    address = ray_local.get_runtime_context().gcs_address
    args = ("--index-dir", str(built), "--ray-collection", "many")
    server = start_server(*args, env={"RAY_ADDRESS": address}, timeout=180)
    try:
        with groundkit.Searcher.open(built, "one") as one:
            for query in QUERIES[:3]:
                body = {"query": query, "top_k": 6, "mode": "hybrid", "collection": "many",
                        "where": {"source_prefix": "part1/"}, "verify": True}  # fmt: skip
                posted = urllib.request.Request(
                    server.url + "/v1/search",
                    data=json.dumps(body).encode(),
                    headers={"Content-Type": "application/json"},
                )
                with urllib.request.urlopen(posted, timeout=60) as answer:
                    reply = json.loads(answer.read())
                want = one.search(query, 6, "hybrid", where=FILTERS[0])
                assert [(r["chunk_id"], r["score"]) for r in reply["results"]] == [
                    (r.chunk_id, r.score) for r in want.results
                ]
                assert {r["verification"]["verdict"] for r in reply["results"]} == {"verified"}
    finally:
        server.stop()
