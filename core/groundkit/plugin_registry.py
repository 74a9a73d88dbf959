"""The one hook a plugin implements: ``register(registry: PluginRegistry) -> None``.

Each method adds one kind of thing under a name; embedders, vector stores, rerankers and
extractors go to the core's own registries (the ones ``groundkit.register_*`` fill in-process),
CLI commands and shard engines are kept here. Each registry is imported when something is
registered in it, so loading plugins imports no registry nobody uses (an extractor's, for a
search). Registering a name again replaces it; a command named as one of the core's is
ignored. A plugin should register cheap, lazy callables: ``register`` runs whenever the core
looks for a name it does not know, and what it imports then is imported into that process
(adr/0053).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from groundkit.errors import ConfigurationError
from groundkit.plugins import load_plugins, not_provided, well_known

if TYPE_CHECKING:
    from groundkit.cli.options import Parents
    from groundkit.embedding.embedder_registry import EmbedderFactory, EmbedderFolderLoader
    from groundkit.extract.extractor_registry import ExtractorFactory
    from groundkit.retrieval.rerank import Reranker
    from groundkit.retrieval.rerankers import RerankerFactory, RerankerFolderLoader
    from groundkit.retrieval.searcher import Searcher
    from groundkit.shards.build import ShardedIngestReport
    from groundkit.vectors.store_registry import VectorStoreLoader

__all__ = [
    "CliCommand",
    "PluginRegistry",
    "ShardBuild",
    "ShardEngine",
    "ShardServe",
    "plugin_commands",
    "shard_engine",
]


@dataclass(frozen=True, slots=True)
class CliCommand:
    """A ``groundkit NAME`` subcommand: its parser added under ``commands``, and its runner."""

    name: str
    add_parser: Callable[[Any, Parents], None]
    """``(commands, parents)``: ``commands.add_parser(name, parents=[...])`` and its flags."""
    run: Callable[[argparse.Namespace], int]
    """Runs the parsed command; returns the exit code (``groundkit.extend.ExitCode``)."""


class ShardBuild(Protocol):
    """Builds (or updates) a sharded collection, as ``groundkit shard build --engine NAME``."""

    def __call__(
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


_COMMANDS: dict[str, CliCommand] = {}
_ENGINES: dict[str, ShardEngine] = {}


class PluginRegistry:
    """What a plugin adds to groundkit, one method per kind; handed to its ``register``.

    A name (or model-folder loader) the application registered in-process before the plugins
    loaded stays the application's: plugins load lazily, so replacing it would depend on what
    happened to be looked up first."""

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        """The entry point's name (``native``), for messages."""

    def embedder(self, name: str, factory: EmbedderFactory, *, provider: str, model: str) -> None:
        """``--embedder NAME``; also rebuilds collections whose identity is (provider, model)."""
        from groundkit.embedding import embedder_registry

        if name not in embedder_registry._REGISTRY:
            embedder_registry.register_embedder(
                name, provider=provider, model=model, factory=factory
            )

    def embedder_folder(self, load: EmbedderFolderLoader) -> None:
        """``--embedder DIR``: ``load(folder)`` builds an embedder from a model folder."""
        from groundkit.embedding import embedder_registry

        if not embedder_registry._FOLDER:
            embedder_registry.register_embedder_folder(load)

    def vector_store(self, name: str, loader: VectorStoreLoader) -> None:
        """``--vector-store NAME``: ``loader(reader, identity, location)`` builds the store."""
        from groundkit.vectors import store_registry

        if name not in store_registry._LOADERS:
            store_registry.register_vector_store(name, loader)

    def reranker(self, name: str, factory: RerankerFactory) -> None:
        """``--reranker NAME``: ``factory()`` builds the reranker."""
        from groundkit.retrieval import rerankers

        if name not in rerankers._REGISTRY:
            rerankers.register_reranker(name, factory)

    def reranker_folder(self, load: RerankerFolderLoader) -> None:
        """``--reranker DIR``: ``load(folder)`` builds a reranker from a model folder."""
        from groundkit.retrieval import rerankers

        if not rerankers._FOLDER:
            rerankers.register_reranker_folder(load)

    def extractor(self, name: str, factory: ExtractorFactory, extensions: Iterable[str]) -> None:
        """Files ending in ``extensions`` (``.docx``) are read through ``factory()``'s extractor."""
        from groundkit.extract import extractor_registry

        if name not in extractor_registry._FACTORIES:
            extractor_registry.register_extractor(name, factory, extensions)

    def cli_command(
        self,
        name: str,
        add_parser: Callable[[Any, Parents], None],
        run: Callable[[argparse.Namespace], int],
    ) -> None:
        """``groundkit NAME``: a subcommand beside the core's (which it cannot replace)."""
        from groundkit.cli.commands import COMMANDS

        if not name or any(name == command.NAME for command in COMMANDS):
            raise ConfigurationError(
                f"plugin {self.plugin!r}: command {name!r} is empty or one of the core's"
            )
        _COMMANDS[name] = CliCommand(name, add_parser, run)

    def shard_engine(self, name: str, engine: ShardEngine) -> None:
        """``groundkit shard build --engine NAME`` (and serving, where ``engine.serve`` is set)."""
        if not name or name == "local":
            raise ConfigurationError(f"plugin {self.plugin!r}: engine {name!r} is reserved")
        _ENGINES[name] = engine


def plugin_commands() -> tuple[CliCommand, ...]:
    """Every command the installed plugins add, sorted by name (loads the plugins)."""
    load_plugins()
    return tuple(_COMMANDS[name] for name in sorted(_COMMANDS))


def shard_engine(name: str) -> ShardEngine:
    """The shard engine called ``name`` (loads the plugins the first time one is asked for)."""
    if name not in _ENGINES:
        load_plugins()
    engine = _ENGINES.get(name)
    if engine is None:
        raise not_provided("shard-engine", name, known=[*_ENGINES, *well_known("shard-engine")])
    return engine
