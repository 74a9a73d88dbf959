"""Serving a sharded collection on Ray Serve: one deployment per shard, the search here.

Each shard is a Serve deployment (``replicas`` copies) holding the shard's
scorer (``groundkit.StoredCollection.open_shard``); ``RayTransport`` sends each step of a search
(``groundkit.extend.Step``) to every shard at once and waits for all of them, and
``serve_sharded`` returns the one ``groundkit.Searcher`` over it, so the answer is the single
collection's, bit for bit. A shard that does not answer in time, or fails, makes the search
fail closed (``ShardUnavailableError``): never a shorter list. adr/0028, adr/0063, adr/0067.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, TypeVar

from groundkit import (
    DEFAULT_INDEX_DIR,
    BM25Params,
    GroundkitError,
    Reranker,
    Searcher,
    ShardUnavailableError,
    StoredCollection,
    resolve_embedder,
)
from groundkit.extend import ConfigurationError, Step
from groundkit_ray._ray import require_initialized

__all__ = ["RayTransport", "ShardReplica", "serve_sharded"]

DEFAULT_TIMEOUT_S = 30.0
T = TypeVar("T")


class ShardReplica:
    """One shard, opened in a Serve replica: it answers each step with its scorer."""

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
        self._scorer = StoredCollection(index_dir, collection).open_shard(
            shard,
            bm25=BM25Params(k1=k1, b=b),
            embedder=None if embedder is None else resolve_embedder(embedder),
            vector_store=vector_store,
        )

    def __call__(self, step: Step[Any]) -> Any:
        return step.run(self._scorer)


class RayTransport:
    """A ``Transport`` over Serve handles: every step sent, then every answer awaited."""

    def __init__(
        self,
        handles: Sequence[Any],
        *,
        timeout_s: float = DEFAULT_TIMEOUT_S,
        names: Sequence[str] = (),
    ) -> None:
        """``names``: the shards' names, in shard order, for messages."""
        self._handles = list(handles)
        self._timeout_s = timeout_s
        self._names = list(names)

    def send(self, calls: Sequence[tuple[int, Step[T]]]) -> list[T]:
        pending = [(shard, self._handle(shard).remote(step)) for shard, step in calls]
        return [self._wait(shard, call) for shard, call in pending]

    def close(self) -> None:
        """Nothing to release here: the deployments outlive the searcher (``serve.delete``)."""

    def _name(self, shard: int) -> str:
        return self._names[shard] if 0 <= shard < len(self._names) else f"#{shard}"

    def _handle(self, shard: int) -> Any:
        if not 0 <= shard < len(self._handles):
            raise ShardUnavailableError(
                f"shard {self._name(shard)} has no deployment here ({len(self._handles)} "
                "deployed); a sharded search never answers from the other shards alone",
                subject=self._name(shard),
            )
        return self._handles[shard]

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
                f"shard {self._name(shard)} did not answer ({type(exc).__name__}: "
                f"{str(exc)[:200]}); a sharded search never answers from the other shards alone",
                subject=self._name(shard),
            ) from None


def start_without_proxy(serve: Any) -> None:
    """Start Ray Serve with its HTTP proxy disabled: the shards are reached through deployment
    handles only (``route_prefix=None``), so no port is bound (Serve's default proxy takes
    8000 on every node, which a docs preview or a web server often holds). A Serve instance
    already running is used as it is."""
    from ray.serve.config import ProxyLocation

    serve.start(proxy_location=ProxyLocation.Disabled)


def serve_sharded(  # noqa: PLR0913  Searcher.open's keywords, and the Serve deployment's
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
) -> Searcher:
    """Deploy every shard of ``collection`` on Ray Serve (``replicas`` each) and return the
    ``Searcher`` over them. ``name``: the Serve application (default: the
    collection's name); the shards are read from ``index_dir``, which every node must see.
    ``reranker``: re-scores the merged candidates of a ``rerank`` search, here on the driver."""
    require_initialized(address)
    from ray import serve

    if replicas < 1:
        raise ConfigurationError(f"replicas must be >= 1, got {replicas!r}")
    stored = StoredCollection(index_dir, collection)
    names = stored.shard_names()  # CollectionNotFoundError if it is not a sharded collection
    params = bm25 or BM25Params()
    folder = str(Path(index_dir).resolve())
    start_without_proxy(serve)
    deployment: Any = serve.deployment(
        ShardReplica, num_replicas=replicas, ray_actor_options={"num_cpus": 0}
    )
    handles = []
    app = name or collection
    for shard, shard_name in enumerate(names):
        bound = deployment.options(name=f"{app}-{shard_name}").bind(
            folder, collection, shard, params.k1, params.b, embedder, vector_store
        )
        handles.append(serve.run(bound, name=f"{app}-{shard_name}", route_prefix=None))
    transport = RayTransport(handles, timeout_s=timeout_s, names=names)
    return stored.searcher_over(transport, bm25=params, reranker=reranker)
