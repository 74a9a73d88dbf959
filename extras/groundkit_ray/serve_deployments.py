"""Serving a sharded collection on Ray Serve: one deployment per shard, scatter-gather here.

Each shard is a Serve deployment (``replicas`` copies) holding a ``ShardSearcher``; the
search (``groundkit.Searcher``) sends each step to every shard at once and waits
for all of them, so the answer is the single collection's, bit for bit. A shard that does not
answer in time, or fails, makes the search fail closed (``ShardUnavailableError``): never a
shorter list. ``ShardedSearchTool`` is ``groundkit.Searcher`` over these replicas: the same
search as in one process, only the calls to the shards travel.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from groundkit import (
    BM25Params,
    Citation,
    GroundkitError,
    Reranker,
    Searcher,
    SearchFilter,
    SearchMode,
    SearchResult,
    Verification,
)
from groundkit.extend import ConfigurationError
from groundkit.hosting import (
    DEFAULT_INDEX_DIR,
    ShardHit,
    ShardSearcher,
    ShardStatistics,
    ShardUnavailableError,
    bind_analyzer,
    load_manifest,
    resolve_embedder,
    shard_name,
    sharded_layout,
)
from groundkit_ray._ray import require_initialized

__all__ = ["RayShards", "ShardReplica", "ShardedSearchTool", "serve_sharded"]

DEFAULT_TIMEOUT_S = 30.0
Wire = tuple[str, float, str, str, Citation, dict[str, Any]]
"""A result as it crosses processes (its metadata as a plain dict)."""
WireFilter = dict[str, Any]
"""A ``SearchFilter`` as it crosses processes (``SearchFilter.to_dict``)."""


def _wire(where: SearchFilter | None) -> WireFilter | None:
    return None if where is None else where.to_dict()


def _filter(where: WireFilter | None) -> SearchFilter | None:
    return None if where is None else SearchFilter(**where)


class ShardReplica:
    """One shard, opened in a Serve replica; its methods are ``ShardSearcher``'s."""

    def __init__(
        self,
        index_dir: str,
        collection: str,
        shard: int,
        k1: float,
        b: float,
        embedder: str | None,
        vector_store: str | None,
    ) -> None:
        manifest = load_manifest(index_dir, collection)
        self._searcher = ShardSearcher.open(
            index_dir,
            manifest,
            shard,
            bm25=BM25Params(k1=k1, b=b),
            embedder=None if embedder is None else resolve_embedder(embedder),
            vector_store=vector_store,
        )

    def default_mode(self) -> SearchMode:
        return self._searcher.default_mode

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        return self._searcher.floor(mode, given)

    def lexical_share(self, given: float | None) -> tuple[float, str]:
        return self._searcher.lexical_share(given)

    def lexical_bar(self) -> tuple[float | None, str]:
        return self._searcher.lexical_bar()

    def admitted(self, where: WireFilter) -> int:
        return self._searcher.admitted(SearchFilter(**where))

    def statistics(self, terms: Sequence[str]) -> ShardStatistics:
        return self._searcher.statistics(terms)

    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        score_threshold: float | None,
        where: WireFilter | None,
        ties: bool = True,
    ) -> tuple[list[ShardHit], str]:
        return self._searcher.lexical(
            terms, k, df, score_threshold=score_threshold, where=_filter(where), ties=ties
        )

    def dense(
        self,
        query: str,
        mode: str,
        k: int,
        min_score: float | None,
        where: WireFilter | None,
        ties: bool = True,
    ) -> tuple[list[ShardHit], str | None]:
        return self._searcher.dense_hits(
            query, mode, k, min_score=min_score, where=_filter(where), ties=ties
        )

    def results(self, ranked: Sequence[tuple[int, float, int]]) -> list[Wire]:
        return [
            (r.content, r.score, r.document_id, r.chunk_id, r.citation, dict(r.metadata))
            for r in self._searcher.results(ranked)
        ]

    def verify(self, citation: Citation, document_id: str) -> Verification:
        return self._searcher.verify(citation, document_id)


class RayShards:
    """``ShardGroup`` over Serve handles: each step goes to every shard, then all are awaited."""

    def __init__(
        self, handles: Sequence[Any], *, timeout_s: float = DEFAULT_TIMEOUT_S, reference: int = 0
    ) -> None:
        """``reference``: the shard that answers ``default_mode`` for all."""
        self._handles = list(handles)
        self._timeout_s = timeout_s
        self._reference = reference
        self._default_mode: SearchMode | None = None

    @property
    def size(self) -> int:
        return len(self._handles)

    def _all(self, method: str, *args: Any) -> list[Any]:
        calls = [getattr(handle, method).remote(*args) for handle in self._handles]
        return [self._wait(shard, call) for shard, call in enumerate(calls)]

    def _wait(self, shard: int, call: Any) -> Any:
        try:
            return call.result(timeout_s=self._timeout_s)
        except GroundkitError:
            raise
        except Exception as exc:  # a dead replica, a timeout, a deployment gone
            cause = getattr(exc, "cause", None)
            if isinstance(cause, GroundkitError):
                raise cause from None
            raise ShardUnavailableError(
                f"shard {shard_name(shard)} did not answer ({type(exc).__name__}: "
                f"{str(exc)[:200]}); a sharded search never answers from the other shards alone",
                subject=shard_name(shard),
            ) from None

    @property
    def default_mode(self) -> SearchMode:
        if self._default_mode is None:  # the same for every search of these deployments
            ask = self._handles[self._reference].default_mode.remote()
            self._default_mode = self._wait(self._reference, ask)
        return self._default_mode

    def floors(
        self, mode: str, given: float | None, shards: Sequence[int]
    ) -> list[tuple[float, str]]:
        calls = [(shard, self._handles[shard].floor.remote(mode, given)) for shard in shards]
        out = []
        for shard, call in calls:
            floor, source = self._wait(shard, call)
            out.append((float(floor), str(source)))
        return out

    def lexical_shares(self, given: float | None, shards: Sequence[int]) -> list[tuple[float, str]]:
        calls = [(shard, self._handles[shard].lexical_share.remote(given)) for shard in shards]
        out = []
        for shard, call in calls:
            share, source = self._wait(shard, call)
            out.append((float(share), str(source)))
        return out

    def lexical_bars(self, shards: Sequence[int]) -> list[tuple[float | None, str]]:
        calls = [(shard, self._handles[shard].lexical_bar.remote()) for shard in shards]
        out: list[tuple[float | None, str]] = []
        for shard, call in calls:
            share, source = self._wait(shard, call)
            out.append((None if share is None else float(share), str(source)))
        return out

    def admitted(self, where: SearchFilter) -> list[int]:
        return self._all("admitted", _wire(where))

    def statistics(self, terms: Sequence[str]) -> list[ShardStatistics]:
        return self._all("statistics", list(terms))

    def lexical(
        self,
        terms: Sequence[str],
        k: int,
        df: Mapping[str, int],
        score_threshold: float | None,
        where: SearchFilter | None,
        ties: bool = True,
    ) -> list[tuple[list[ShardHit], str]]:
        return self._all("lexical", list(terms), k, dict(df), score_threshold, _wire(where), ties)

    def dense(
        self,
        query: str,
        mode: str,
        k: int,
        min_score: float | None,
        where: SearchFilter | None,
        ties: bool = True,
    ) -> list[tuple[list[ShardHit], str | None]]:
        return self._all("dense", query, mode, k, min_score, _wire(where), ties)

    def results(
        self, ranked: Mapping[int, Sequence[tuple[int, float, int]]]
    ) -> dict[int, list[SearchResult]]:
        calls = {
            shard: self._handles[shard].results.remote(list(rows)) for shard, rows in ranked.items()
        }
        out: dict[int, list[SearchResult]] = {}
        for shard, call in calls.items():
            wire: list[Wire] = self._wait(shard, call)
            out[shard] = [
                SearchResult(
                    content=content,
                    score=score,
                    document_id=document_id,
                    chunk_id=chunk_id,
                    citation=citation,
                    metadata=metadata,
                )
                for content, score, document_id, chunk_id, citation, metadata in wire
            ]
        return out

    def verify(self, shard: int, citation: Citation, document_id: str) -> Verification:
        call = self._handles[shard].verify.remote(citation, document_id)
        check: Verification = self._wait(shard, call)
        return check


class ShardedSearchTool(Searcher):
    """The sharded search over Ray Serve replicas; ``tool(request)`` is ``tool.search``,
    the callable a service registry puts in front."""

    __call__ = Searcher.search


def start_without_proxy(serve: Any) -> None:
    """Start Ray Serve with its HTTP proxy disabled: the shards are reached through deployment
    handles only (``route_prefix=None``), so no port is bound (Serve's default proxy takes
    8000 on every node, which a docs preview or a web server often holds). A Serve instance
    already running is used as it is."""
    from ray.serve.config import ProxyLocation

    serve.start(proxy_location=ProxyLocation.Disabled)


def serve_sharded(
    collection: str,
    *,
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    replicas: int = 1,
    bm25: BM25Params | None = None,
    embedder: str | None = None,
    vector_store: str | None = None,
    name: str | None = None,
    timeout_s: float = DEFAULT_TIMEOUT_S,
    address: str | None = None,
    reranker: Reranker | None = None,
) -> ShardedSearchTool:
    """Deploy every shard of ``collection`` on Ray Serve (``replicas`` each) and return the
    search tool that scatters to them. ``name``: the Serve application (default: the
    collection's name); the shards are read from ``index_dir``, which every node must see.
    ``reranker``: re-scores the merged candidates of a ``rerank`` search, here on the driver."""
    require_initialized(address)
    from ray import serve

    if replicas < 1:
        raise ConfigurationError(f"replicas must be >= 1, got {replicas!r}")
    manifest = load_manifest(index_dir, collection)
    params = bm25 or BM25Params()
    folder = str(Path(index_dir).resolve())
    start_without_proxy(serve)
    deployment: Any = serve.deployment(
        ShardReplica, num_replicas=replicas, ray_actor_options={"num_cpus": 0}
    )
    handles = []
    app = name or collection
    for shard in range(len(manifest.shards)):
        bound = deployment.options(name=f"{app}-{shard_name(shard)}").bind(
            folder, collection, shard, params.k1, params.b, embedder, vector_store
        )
        handles.append(serve.run(bound, name=f"{app}-{shard_name(shard)}", route_prefix=None))
    shards = RayShards(handles, timeout_s=timeout_s, reference=manifest.reference_shard)
    analyzer = bind_analyzer(manifest.collection, manifest.analyzer, None)
    layout = sharded_layout(manifest)
    return ShardedSearchTool(shards, layout, analyzer=analyzer, bm25=params, reranker=reranker)
