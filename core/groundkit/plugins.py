"""Plugins: found through entry points, loaded once, recording what they provide.

A plugin declares ``[project.entry-points."groundkit.plugins"]`` ``NAME = "module:register"``;
``register(registry: PluginRegistry)`` records ``(kind, name, object)`` triples and nothing
else (sqlite-utils' hookspec shape, adr/0058). This module imports no consumer: each consumer
(the embedder lookup, the CLI, ...) pulls its kind through ``groundkit.plugin_registry.
Registry``. A plugin's records are kept all together or not at all: ``register`` runs inside a
guard that catches any ``BaseException`` (``SystemExit``, ``KeyboardInterrupt``), and a plugin
that raises is disabled and named, with its error, in ``--help`` and every "unknown name"
message. ``WELL_KNOWN`` only words messages: the pip extra of groundkit that provides a name.
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, Protocol

from groundkit.errors import ConfigurationError

if TYPE_CHECKING:
    from groundkit.cli.options import Parents
    from groundkit.embedding.embedder import Embedder
    from groundkit.extract.extractor import Extractor
    from groundkit.manifest import EmbeddingIdentity
    from groundkit.retrieval.rerank import Reranker
    from groundkit.retrieval.searcher import Searcher
    from groundkit.shards.build import ShardedIngestReport
    from groundkit.store.protocols import CollectionReader
    from groundkit.vectors.vector_store import VectorStore

__all__ = [
    "HELP_WAIT_S",
    "KINDS",
    "PLUGIN_GROUP",
    "WELL_KNOWN",
    "CliCommand",
    "EmbedderEntry",
    "ExtractorEntry",
    "PluginRegistry",
    "ShardBuild",
    "ShardEngine",
    "ShardServe",
    "extension_list",
    "failure_note",
    "import_extra",
    "install_hint",
    "load_plugins",
    "not_provided",
    "record_failure",
    "recorded",
    "unload",
    "well_known",
]

PLUGIN_GROUP = "groundkit.plugins"
"""The entry-point group a plugin declares its ``register`` in."""

KINDS = (
    "command",
    "embedder",
    "embedder-folder",
    "extractor",
    "reranker",
    "reranker-folder",
    "shard-engine",
    "vector-store",
)
"""Every kind a plugin can record (a folder loader is recorded under its plugin's name)."""

WELL_KNOWN: dict[str, str] = {
    "command:serve": "serve",
    "embedder-folder:onnx": "onnx",
    "embedder:minilm": "onnx",
    "reranker-folder:onnx": "onnx",
    "shard-engine:ray": "ray",
    "vector-store:usearch": "usearch",
    "vector-store:usearch_exact": "usearch",
}
"""``kind:name`` -> the pip extra of groundkit whose plugin provides it (for messages, help)."""

HELP_WAIT_S = 1.0
"""How long the top-level help waits for the plugins; a slower one is named, not listed."""


@dataclass(frozen=True, slots=True)
class CliCommand:
    """A ``groundkit NAME`` subcommand: its parser added under ``commands``, and its runner."""

    name: str
    add_parser: Callable[[Any, Parents], None]
    """``(commands, parents)``: ``commands.add_parser(name, parents=[...])`` and its flags."""
    run: Callable[[Any], int]
    """Runs the parsed command (an ``argparse.Namespace``); returns the exit code."""


@dataclass(frozen=True, slots=True)
class EmbedderEntry:
    """An embedder's factory and the identity (provider, model) it reproduces."""

    provider: str
    model: str
    factory: Callable[[EmbeddingIdentity | None], Embedder]


@dataclass(frozen=True, slots=True)
class ExtractorEntry:
    """An extractor's factory and the file extensions (``.docx``) it reads."""

    factory: Callable[[], Extractor]
    extensions: tuple[str, ...]


class ShardBuild(Protocol):
    """Builds (or updates) a sharded collection, as ``groundkit shard build --engine NAME``."""

    def __call__(  # noqa: PLR0913  the SPI hook: one keyword per `shard build` flag
        self,
        source: str | Path,
        *,
        collection: str,
        shards: int | None,
        index_dir: str | Path,
        workers: int,
        embedder: str | None,
        vector_store: str | None,
        corpus_dir: str | Path | None,
        address: str | None,
        calibrate: bool,
    ) -> ShardedIngestReport: ...


class ShardServe(Protocol):
    """Serves a sharded collection's shards and returns the ``Searcher`` over them."""

    def __call__(
        self,
        collection: str,
        *,
        index_dir: str | Path,
        replicas: int,
        address: str | None,
        reranker: Reranker | None,
    ) -> Searcher: ...


@dataclass(frozen=True, slots=True)
class ShardEngine:
    """Where sharded collections are built, and optionally served (``ray``)."""

    build: ShardBuild
    serve: ShardServe | None = None


def _name(kind: str, name: str) -> str:
    if not isinstance(name, str) or not name.isidentifier():
        raise ConfigurationError(f"{kind} name {name!r} must be a non-empty identifier")
    return name


class PluginRegistry:
    """What a plugin's ``register`` records, one method per kind; nothing is kept unless
    ``register`` returns. A bad argument raises ``ConfigurationError`` (the plugin is then
    disabled whole)."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        """The entry point's name (``native``), for messages."""
        self.records: list[tuple[str, str, object]] = []
        """``(kind, name, object)`` in the order recorded."""

    def _record(self, kind: str, name: str, item: object) -> None:
        if not callable(item) and not isinstance(item, (EmbedderEntry, ExtractorEntry, CliCommand)):
            raise ConfigurationError(f"plugin {self.plugin!r}: {kind} {name!r} is not callable")
        self.records.append((kind, name, item))

    def embedder(
        self,
        name: str,
        factory: Callable[[EmbeddingIdentity | None], Embedder],
        *,
        provider: str,
        model: str,
    ) -> None:
        """``--embedder NAME``; also rebuilds collections whose identity is (provider, model)."""
        self._record("embedder", _name("embedder", name), EmbedderEntry(provider, model, factory))

    def embedder_folder(self, load: Callable[[Path], Embedder]) -> None:
        """``--embedder DIR``: ``load(folder)`` builds an embedder from a model folder."""
        self._record("embedder-folder", self.plugin, load)

    def vector_store(
        self, name: str, loader: Callable[[CollectionReader, EmbeddingIdentity, str], VectorStore]
    ) -> None:
        """``--vector-store NAME``: ``loader(reader, identity, location)`` builds the store."""
        self._record("vector-store", _name("vector store", name), loader)

    def reranker(self, name: str, factory: Callable[[], Reranker]) -> None:
        """``--reranker NAME``: ``factory()`` builds the reranker."""
        self._record("reranker", _name("reranker", name), factory)

    def reranker_folder(self, load: Callable[[Path], Reranker]) -> None:
        """``--reranker DIR``: ``load(folder)`` builds a reranker from a model folder."""
        self._record("reranker-folder", self.plugin, load)

    def extractor(
        self, name: str, factory: Callable[[], Extractor], extensions: Iterable[str]
    ) -> None:
        """Files ending in ``extensions`` (``.docx``) are read through ``factory()``'s extractor."""
        entry = ExtractorEntry(factory, extension_list(extensions))
        self._record("extractor", _name("extractor", name), entry)

    def cli_command(
        self, name: str, add_parser: Callable[[Any, Parents], None], run: Callable[[Any], int]
    ) -> None:
        """``groundkit NAME``: a subcommand beside the core's (a core name is never replaced)."""
        _name("command", name.replace("-", "_"))
        self._record("command", name, CliCommand(name, add_parser, run))

    def shard_engine(self, name: str, engine: ShardEngine) -> None:
        """``groundkit shard build --engine NAME`` (and serving, where ``engine.serve`` is set)."""
        if not isinstance(engine, ShardEngine) or name == "local":
            raise ConfigurationError(f"plugin {self.plugin!r}: engine {name!r} is reserved or bad")
        self.records.append(("shard-engine", _name("shard engine", name), engine))


def extension_list(extensions: Iterable[str]) -> tuple[str, ...]:
    """``extensions`` lower-cased; ``ConfigurationError`` unless each is like ``.pdf``."""
    wanted = tuple(e.lower() for e in ([extensions] if isinstance(extensions, str) else extensions))
    if not wanted or any(not e.startswith(".") or len(e) < 2 for e in wanted):
        raise ConfigurationError(f"extractor extensions must be like '.pdf', got {wanted!r}")
    return wanted


_LOCK = threading.Lock()
_LOADED = threading.Event()
_LOADING = threading.local()
"""Set in the thread running the plugins' ``register``: a lookup a plugin makes from there
finds what is recorded so far instead of waiting for itself."""
_records: dict[str, dict[str, tuple[str, object]]] = {}
"""kind -> name -> (plugin, object): the first plugin (by entry-point name) to record a name."""
_failed: dict[str, str] = {}
"""Plugins (or parts of one) that failed: name -> what went wrong."""
_pending: list[str] = []
"""The plugin whose module or ``register`` is running now (named when help stops waiting)."""


def install_hint(extra: str) -> str:
    """The command that installs an extra from a clone, e.g. ``pip install ".[onnx]"``."""
    return f'pip install ".[{extra}]" (in a clone of groundkit: PyPI\'s groundkit is another)'


def well_known(kind: str) -> tuple[str, ...]:
    """The names of ``kind`` groundkit's own extras provide, sorted (listed before loading)."""
    return tuple(sorted(key.partition(":")[2] for key in WELL_KNOWN if key.startswith(f"{kind}:")))


def _describe(exc: BaseException) -> str:
    text = str(exc)
    return type(exc).__name__ + (f": {text}" if text else "")


def _commit(handle: PluginRegistry) -> None:
    """Keep every record of one plugin (a name another plugin already holds is noted)."""
    for kind, name, item in handle.records:
        held = _records.setdefault(kind, {}).get(name)
        if held is not None and held[0] != handle.plugin:
            record_failure(f"{handle.plugin} ({kind} {name})", f"already provided by {held[0]}")
            continue
        _records[kind][name] = (handle.plugin, item)


def _load_all() -> None:
    from importlib.metadata import entry_points

    _LOADING.active = True
    try:
        for entry in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: (e.name, e.value)):
            handle = PluginRegistry(entry.name)
            _pending[:] = [entry.name]
            try:  # any exception, SystemExit and KeyboardInterrupt included: one plugin only
                entry.load()(handle)
            except BaseException as exc:  # a plugin never takes groundkit down
                _failed[entry.name] = f"{entry.value}: {_describe(exc)}"
            else:
                _commit(handle)
        _pending.clear()
    finally:
        _LOADING.active = False
        _LOADED.set()


def load_plugins(*, wait: float | None = None) -> bool:
    """Run every installed plugin's ``register`` once in this process (sorted by name).

    ``wait`` (seconds) bounds how long the caller waits: the loading goes on in a thread and
    False says it has not finished (the help names the plugin still loading). Returns True
    once every plugin has run."""
    if _LOADED.is_set() or getattr(_LOADING, "active", False):
        return True
    if wait is not None:
        if _LOCK.acquire(blocking=False):
            _LOCK.release()
            loader = threading.Thread(target=load_plugins, name="groundkit-plugins", daemon=True)
            try:
                loader.start()
            except RuntimeError:  # no threads here (Pyodide): load now, as without a wait
                return load_plugins()
        return _LOADED.wait(wait)
    with _LOCK:
        if not _LOADED.is_set():
            _load_all()
    return True


def unload() -> None:
    """Forget every plugin's records and failures, so the next lookup loads them again."""
    with _LOCK:
        _records.clear()
        _failed.clear()
        _pending.clear()
        _LOADED.clear()


def recorded(kind: str) -> dict[str, tuple[str, object]]:
    """What plugins recorded of ``kind`` so far: name -> (plugin, object). Loads nothing."""
    return dict(_records.get(kind, {}))


def record_failure(plugin: str, why: str) -> None:
    """Remember that (part of) a plugin failed: named in the errors of names nobody provides."""
    _failed[plugin] = why


def failure_note() -> str:
    """`` (plugins that failed to load: NAME (why); ...)``, or "" when none failed."""
    broken = [f"{plugin} ({why})" for plugin, why in sorted(_failed.items())]
    if _pending and not _LOADED.is_set():
        broken.append(f"{_pending[0]} (still loading, not waited for)")
    return f" (plugins that failed to load: {'; '.join(broken)})" if broken else ""


def not_provided(kind: str, name: str, *, known: Iterable[str]) -> ConfigurationError:
    """The error for a ``kind`` called ``name`` that no registration and no plugin provides."""
    extra = WELL_KNOWN.get(f"{kind}:{name}")
    noun = kind.replace("-", " ")
    listed = ", ".join(sorted(set(known))) or "none"
    if extra is not None:
        message = (
            f"{noun} {name!r} comes with groundkit's extra {extra!r}, whose plugin is not "
            f"installed or could not be loaded; install it with: {install_hint(extra)}"
        )
    else:
        message = f"unknown {noun} {name!r}; available: {listed}"
    return ConfigurationError(message + failure_note(), subject=name)


def import_extra(module: str, *, extra: str, what: str, install: str | None = None) -> ModuleType:
    """Import a plugin's ``module`` now; a failure says what to install.

    For a plugin's own lazy factories: ``what`` names the thing asked for (``embedder
    'minilm'``) in the ``ConfigurationError`` raised when the import fails. ``extra`` names
    groundkit's own pip extra; a plugin of another distribution passes its own ``install``
    command (``pip install my-plugin[gpu]``) instead.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if install is not None:
            message = f"{what} needs {extra!r} ({exc}); install it with: {install}"
        else:
            message = (
                f"{what} needs groundkit's extra {extra!r}, which is not installed or cannot "
                f"be imported ({exc}); install it with: {install_hint(extra)}"
            )
        raise ConfigurationError(message, subject=what) from None
