"""The long-lived side of the service: open read views per collection, refreshed as they change.

Each collection has at most one current ``Searcher`` (a read view at one generation). A request
leases it, uses it under its lock, and gives it back; one request's results therefore all come
from one generation. When a probe finds a newer generation, one background thread builds the
new read view (single-flight) while requests keep being answered from the old, complete one; the
old one is closed when its last lease ends. An LRU cap bounds how many stay open. See adr/0020.

A sharded collection (a folder with ``shards.json``, adr/0028) is served the same way: its
``Searcher`` reads every shard, its generation is the manifest's, and a
missing or out-of-step shard makes the request fail closed (``ShardUnavailableError``).
What changed on disk is ``groundkit.StoredCollection``'s to say: its generation, refused when
a file changed outside groundkit, and its file's state (adr/0056, adr/0057, adr/0067).
"""

from __future__ import annotations

import functools
import logging
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from groundkit import (
    ConfigurationError,
    GroundkitError,
    Reranker,
    Searcher,
    SearchRequest,
    StoredCollection,
    list_collections,
)
from groundkit.extend import CollectionReader
from groundkit_serve.settings import ServeSettings

__all__ = ["Lease", "Runtime"]

log = logging.getLogger("groundkit.serve")


@dataclass(eq=False)
class _Entry:
    searcher: Searcher
    generation: int
    state: object = None  # StoredCollection.state() before it was opened
    lock: threading.Lock = field(default_factory=threading.Lock)
    users: int = 0
    retired: bool = False


@dataclass(frozen=True, slots=True)
class Lease:
    """A read view of one collection, held for one request."""

    collection: str
    searcher: Searcher
    generation: int

    @property
    def readers(self) -> tuple[CollectionReader, ...]:
        """The read view's stores: the collection's, or each shard's in shard order."""
        return self.searcher.readers


@functools.lru_cache(maxsize=256)
def _stored(index_dir: Path, collection: str) -> StoredCollection:
    """The collection by name (the name checked), remembered: a request asks it often."""
    return StoredCollection(index_dir, collection)


_WARM_QUERY = SearchRequest(query="warm", top_k=1, highlight=False, prefix=True, fuzzy=True)
"""One search that builds what a first prefix or fuzzy search would (the lexicon's tables)."""


def _warm_expansion(searcher: Searcher) -> None:
    """Run the warm-up search, so that no client's first prefix or fuzzy query is the one that
    builds the lexicon's tables (seconds on a large collection); a failure is left to the
    first request that meets it."""
    try:
        searcher.search(_WARM_QUERY)
    except GroundkitError as exc:
        log.warning("warm-up search failed", extra={"error": exc.message})


class Runtime:
    """Read views cached per collection; every method is safe to call from worker threads."""

    def __init__(self, settings: ServeSettings, *, reranker: Reranker | None = None) -> None:
        self.settings = settings
        self._reranker = reranker
        self._entries: OrderedDict[str, _Entry] = OrderedDict()
        self._lock = threading.Lock()
        self._building: dict[str, threading.Lock] = {}
        self._refreshing: set[str] = set()
        self.refresh_errors: dict[str, str] = {}
        self.refreshes = 0
        self.started = time.monotonic()
        self._preloading: set[str] = set()
        self.warmed: set[str] = set()
        """Collections whose read view has been opened and warmed (``/readyz`` waits for the
        default one)."""

    def name(self, collection: str | None) -> str:
        """The collection asked for, or the default; the name is validated here."""
        chosen = collection or self.settings.collection
        _stored(self.settings.index_dir, chosen)  # raises ConfigurationError if bad
        return chosen

    def collections(self) -> list[str]:
        """Names of the collections under the index folder, sorted."""
        return list_collections(self.settings.index_dir)

    def sharded(self, collection: str) -> bool:
        """Whether ``collection`` is a sharded collection (adr/0028)."""
        return _stored(self.settings.index_dir, collection).sharded

    def probe(self, collection: str) -> int:
        """The collection's committed generation now (raises if missing, unreadable or
        changed outside groundkit; for a sharded one, also when a shard's file is gone)."""
        return _stored(self.settings.index_dir, collection).generation()

    @contextmanager
    def lease(self, collection: str | None) -> Iterator[Lease]:
        """The current read view of ``collection``, locked for this request."""
        name = self.name(collection)
        entry = self._acquire(name)
        try:
            with entry.lock:
                yield Lease(name, entry.searcher, entry.generation)
        finally:
            self._release(entry)

    def preload(self, collection: str) -> None:
        """Open (and warm) ``collection``'s read view ahead of its first request; a collection
        that cannot be opened is left to that request to report."""
        try:
            with self.lease(collection) as lease:  # opened on a request's path: warm it here
                if lease.collection not in self.warmed:
                    _warm_expansion(lease.searcher)
                    with self._lock:
                        self.warmed.add(lease.collection)
        except GroundkitError as exc:
            log.warning(
                "preload of collection %r failed: %s",
                collection,
                exc.message,
                extra={"collection": collection, "error": exc.message},
            )

    def preload_soon(self, collection: str) -> None:
        """``preload`` in a background thread, once at a time per collection (``/readyz`` asks
        for it when its default collection came after the server started)."""
        with self._lock:
            if collection in self._preloading:
                return
            self._preloading.add(collection)

        def run() -> None:
            try:
                self.preload(collection)
            finally:
                with self._lock:
                    self._preloading.discard(collection)

        threading.Thread(target=run, name=f"preload-{collection}", daemon=True).start()

    def _acquire(self, name: str) -> _Entry:
        current = self.probe(name)  # a missing or corrupt collection fails here, closed
        with self._lock:
            entry = self._entries.get(name)
            if entry is not None:
                entry.users += 1
                self._entries.move_to_end(name)
                changed = entry.generation != current
                moved = (
                    not changed
                    and entry.state is not None
                    and entry.state != _stored(self.settings.index_dir, name).state()
                )  # the file changed with no commit to explain it: reopen it, checked
                if (changed or moved) and name not in self._refreshing:
                    self._refreshing.add(name)
                    threading.Thread(
                        target=self._refresh,
                        args=(name, moved),
                        name=f"refresh-{name}",
                        daemon=True,
                    ).start()
                return entry
            building = self._building.setdefault(name, threading.Lock())
        with building:  # single-flight: the first request builds, the others wait for it
            with self._lock:
                entry = self._entries.get(name)
                if entry is not None:
                    entry.users += 1
                    return entry
            entry = self._open(name)
            with self._lock:
                entry.users += 1
                self._install(name, entry)
            return entry

    def _open(self, name: str, checked: bool = False, *, warm: bool = False) -> _Entry:
        """A new read view; ``warm``: off a request's path, so also run the warm-up search
        (a request that opens a collection pays only for what it uses)."""
        stored = _stored(self.settings.index_dir, name)
        sharded = stored.sharded
        state = stored.state()  # before opening: a change during it is seen later
        searcher = stored.open(reranker=self._reranker, checked=checked)
        if not sharded:  # the vector store loads here, not in the first hybrid query
            searcher.warm()
        if warm:
            _warm_expansion(searcher)
            with self._lock:
                self.warmed.add(name)
        return _Entry(searcher, searcher.generation, state)

    def _refresh(self, name: str, checked: bool = False) -> None:
        """Build the newer read view in the background and swap it in when complete;
        ``checked``: the file changed at the same generation, and is checked first."""
        try:
            building = self._building.setdefault(name, threading.Lock())
            with building:
                entry = self._open(name, checked, warm=True)
            with self._lock:
                self._install(name, entry)
                self.refreshes += 1
                self.refresh_errors.pop(name, None)
            log.info("refreshed", extra={"collection": name, "generation": entry.generation})
        except GroundkitError as exc:  # the old read view keeps serving; status shows why
            self.refresh_errors[name] = exc.message
            log.warning("refresh failed", extra={"collection": name, "error": exc.message})
        finally:
            with self._lock:
                self._refreshing.discard(name)

    def _install(self, name: str, entry: _Entry) -> None:
        """Make ``entry`` current (caller holds ``_lock``); retire the old and the LRU excess."""
        old = self._entries.pop(name, None)
        self._entries[name] = entry
        retired = [] if old is None else [old]
        while len(self._entries) > self.settings.max_open_collections:
            _, evicted = self._entries.popitem(last=False)
            retired.append(evicted)
        for stale in retired:
            stale.retired = True
            if stale.users == 0:
                stale.searcher.close()

    def _release(self, entry: _Entry) -> None:
        with self._lock:
            entry.users -= 1
            if entry.retired and entry.users == 0:
                entry.searcher.close()

    def open_generations(self) -> dict[str, int]:
        with self._lock:
            return {name: e.generation for name, e in self._entries.items()}

    def reranker_required(self) -> None:
        if self._reranker is None:
            raise ConfigurationError(
                "rerank was asked for but this server has no reranker; start it with "
                "--reranker DIR, or search without rerank",
                subject="reranker",
            )

    def close(self) -> None:
        with self._lock:
            for entry in self._entries.values():
                entry.retired = True
                if entry.users == 0:
                    entry.searcher.close()
            self._entries.clear()
