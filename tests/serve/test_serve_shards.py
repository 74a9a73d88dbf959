"""``search_sharded``: a sharded collection behind the service's registry (issue 19)."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

import groundkit
from groundkit.shards import ShardedRetriever, ingest_sharded
from groundkit_serve import Registry, Runtime, ServeSettings, ServiceError
from groundkit_serve.models import ShardedSearchRequest


def test_serve_shards_search_sharded_answers_as_one_collection(
    corpus: Path, index_dir: Path, tmp_path: Path
) -> None:
    index = tmp_path / "index"
    ingest_sharded(corpus, shards=3, index_dir=index, collection="many")
    with (
        ShardedRetriever.open(index, "many") as many,
        groundkit.Retriever.open(index_dir, "default") as one,
    ):
        registry = Registry(
            Runtime(ServeSettings(index_dir=index_dir)), sharded=many.search, sharded_name="many"
        )
        spec = registry.tools["search_sharded"]
        assert spec.request is ShardedSearchRequest

        async def call(request: ShardedSearchRequest) -> dict:  # type: ignore[type-arg]
            reply = await registry.call(spec, request)
            return reply.model_dump()

        try:
            for query in ["report a leak", "billing dispute", "boil water notice"]:
                reply = anyio.run(call, ShardedSearchRequest(query=query, top_k=5))
                want = one.search(query, 5)
                assert reply["collection"] == "many"
                assert [(r["chunk_id"], r["score"]) for r in reply["results"]] == [
                    (r.chunk_id, r.score) for r in want.results
                ]
            with pytest.raises(ServiceError, match="limit"):
                anyio.run(call, ShardedSearchRequest(query="leak", top_k=90))
        finally:
            registry.runtime.close()
    assert "search_sharded" not in Registry(Runtime(ServeSettings(index_dir=index_dir))).tools
