"""Plugins come through entry points (adr/0053): found by name, loaded only when needed, and a
missing or broken one is an error that names the fix."""

from __future__ import annotations

import importlib.metadata
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

import groundkit
from groundkit import ConfigurationError, Searcher, plugins
from groundkit.cli.app import COMMAND_REGISTRY, main
from groundkit.embedding import embedder_registry
from groundkit.extract import extractor_registry
from groundkit.retrieval import rerankers
from groundkit.shards.shard_engines import SHARD_ENGINES
from groundkit.vectors import store_registry as vector_registry

GHOST_PLUGIN = """
from groundkit import HashEmbedder, LogitReranker
from groundkit.extend import EmbeddingIdentity


class GhostEmbedder(HashEmbedder):
    @property
    def identity(self):
        return EmbeddingIdentity("ghostco", "ghost-1", "1", 256)


def _ghost(identity):
    return GhostEmbedder()


def _by_length(query, texts):
    return [float(len(text)) for text in texts]


def _ghostly():
    return LogitReranker(_by_length)


def _hello_parser(commands, parents):
    commands.add_parser("hello", parents=[parents.collection], help="say hello")


def _hello(args):
    print(f"hello from {args.collection}")
    return 0


def register(registry):
    registry.embedder("ghost", _ghost, provider="ghostco", model="ghost-1")
    registry.reranker("ghostly", _ghostly)
    registry.cli_command("hello", _hello_parser, _hello)
"""


def install_plugin(root: Path, name: str, module_source: str, target: str) -> None:
    """A distribution ``name`` on ``root`` (its module and dist-info), declaring one plugin."""
    (root / f"{name}.py").write_text(module_source, encoding="utf-8")
    info = root / f"{name}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[groundkit.plugins]\n{name} = {target}\n")


REGISTRIES = (
    embedder_registry.EMBEDDERS,
    embedder_registry.EMBEDDER_FOLDERS,
    rerankers.RERANKERS,
    rerankers.RERANKER_FOLDERS,
    vector_registry.VECTOR_STORES,
    extractor_registry.EXTRACTORS,
    SHARD_ENGINES,
    COMMAND_REGISTRY,
)


@pytest.fixture()
def fresh_plugins(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """Plugins not loaded yet, registries as the core fills them, ``tmp_path/site`` on sys.path."""
    plugins.unload()
    for registry in REGISTRIES:
        registry.reset()
    site = tmp_path / "site"
    site.mkdir()
    monkeypatch.syspath_prepend(str(site))
    yield site
    plugins.unload()
    for registry in REGISTRIES:
        registry.reset()


def test_a_plugins_entry_point_provides_an_embedder_a_reranker_and_a_command(
    fresh_plugins: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(fresh_plugins, "ghost_plugin", GHOST_PLUGIN, "ghost_plugin:register")
    assert "ghost_plugin" not in sys.modules
    embedder = groundkit.get_embedder("ghost")
    assert embedder.identity.provider == "ghostco"
    assert "ghost" in embedder_registry.available_embedders()
    assert rerankers.resolve_reranker("ghostly") is not None
    groundkit.ingest(groundkit.sample_corpus() / "billing", index_dir=tmp_path, embedder=embedder)
    with Searcher.open(tmp_path) as retriever:  # the collection finds its embedder again
        assert retriever.search("pay my bill", mode="dense").results
    assert main(["hello", "--collection", "greetings"]) == 0
    assert capsys.readouterr().out.strip() == "hello from greetings"


def test_a_plugin_that_fails_to_load_is_named_and_hides_no_other(fresh_plugins: Path) -> None:
    install_plugin(fresh_plugins, "broken_plugin", "import no_such_module\n", "broken_plugin:go")
    install_plugin(fresh_plugins, "ghost_plugin", GHOST_PLUGIN, "ghost_plugin:register")
    assert groundkit.get_embedder("ghost") is not None
    with pytest.raises(ConfigurationError, match=r"unknown embedder 'nope'.*broken_plugin.*no_s"):
        groundkit.get_embedder("nope")


def test_a_missing_extra_names_the_pip_install(
    fresh_plugins: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])  # none installed
    assert "minilm" in embedder_registry.available_embedders()  # listed, never imported
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[onnx\]"'):
        embedder_registry.get_embedder("minilm")
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[usearch\]"'):
        vector_registry.load_vector_store("usearch", None, None, location="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="unknown vector store 'nope'"):
        vector_registry.load_vector_store("nope", None, None, location="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[ray\]"'):
        SHARD_ENGINES.get("ray")


def test_a_missing_command_names_its_extra(
    fresh_plugins: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group: [])
    assert main(["serve", "--stdio"]) == 2
    assert 'pip install ".[serve]"' in capsys.readouterr().err


def test_the_native_plugin_names_its_extra_when_its_libraries_are_missing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "groundkit_native.onnx_embedder", None)
    with pytest.raises(ConfigurationError, match=r"embedder 'minilm' needs.*\.\[onnx\]"):
        embedder_registry.get_embedder("minilm")


@pytest.mark.subprocess
def test_names_are_listed_and_plugins_loaded_without_importing_their_libraries() -> None:
    code = (
        "import sys, groundkit, groundkit.cli.app\n"
        "from groundkit.embedding.embedder_registry import available_embedders\n"
        "from groundkit.vectors.store_registry import available_vector_stores\n"
        "assert 'minilm' in available_embedders(), available_embedders()\n"
        "assert 'usearch' in available_vector_stores(), available_vector_stores()\n"
        "assert 'importlib.metadata' not in sys.modules\n"
        "groundkit.cli.app.build_parser()  # loads the plugins: serve's command\n"
        "assert 'importlib.metadata' in sys.modules\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in "
        "('onnxruntime', 'usearch', 'numpy', 'tokenizers', 'mcp', 'starlette', 'ray') "
        "or m in ('groundkit_native.onnx_embedder', 'groundkit_native.usearch_store', "
        "'groundkit_serve.http_app', 'groundkit_ray.ray_data_build')]\n"
        "assert not loaded, loaded\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_collection_of_an_unprovided_embedder_still_answers_bm25(tmp_path: Path) -> None:
    from groundkit.embedding.hashing import HashEmbedder
    from groundkit.manifest import EmbeddingIdentity

    class Unprovided(HashEmbedder):
        @property
        def identity(self) -> EmbeddingIdentity:
            return EmbeddingIdentity("nobodyco", "nobody-1", "1", 256)

    groundkit.ingest(
        groundkit.sample_corpus() / "billing", index_dir=tmp_path, embedder=Unprovided()
    )
    with Searcher.open(tmp_path) as retriever:
        assert retriever.search("pay my bill").results
        with pytest.raises(ConfigurationError, match="no registered embedder"):
            retriever.search("pay my bill", mode="dense")


def test_the_recorded_vector_store_is_the_default(tmp_path: Path) -> None:
    groundkit.ingest(
        groundkit.sample_corpus() / "billing",
        index_dir=tmp_path,
        embedder=groundkit.get_embedder("hash"),
    )
    location = str(tmp_path / "default" / "collection.sqlite")
    assert vector_registry.recorded_vector_store(location) is None
    vector_registry.record_vector_store(location, "exact")
    assert vector_registry.recorded_vector_store(location) is None  # exact: the default
    with Searcher.open(tmp_path) as retriever:
        response = retriever.search("pay my bill", mode="dense")
        assert response.metadata["vector_store"] == "exact"
    (tmp_path / "default" / vector_registry.RECORD_FILE).write_text("[1]", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="names no vector store"):
        vector_registry.recorded_vector_store(location)


def test_every_name_of_the_two_doors_resolves() -> None:
    import groundkit.extend as door

    for module in (door, groundkit):
        assert module.__all__ == sorted(module.__all__, key=lambda n: (not n.isupper(), n))
        missing = [name for name in module.__all__ if getattr(module, name, None) is None]
        assert missing == []
    assert len(door.__all__) <= 30  # the SPI: what a plugin implements or receives (adr/0058)
    assert not set(door.__all__) & set(groundkit.__all__) - {  # one home a name (adr/0067)
        "ConfigurationError",  # the registry's error, which every plugin raises
        *("Embedder", "EmbeddingIdentity", "Extraction", "Extractor", "ExtractorIdentity"),
        *("Reranker", "SearchResult"),  # the protocols a plugin implements, and their values
    }


REENTRANT_PLUGIN = """
from groundkit.vectors.store_registry import vector_store_named


def register(registry):
    try:
        vector_store_named("faiss")  # a lookup from inside register: must not wait for itself
    except Exception:
        pass
    registry.vector_store("flat", lambda reader, identity, location: None)
"""


def test_a_plugin_that_looks_a_name_up_while_registering_does_not_hang(
    fresh_plugins: Path,
) -> None:
    install_plugin(fresh_plugins, "lookup_plugin", REENTRANT_PLUGIN, "lookup_plugin:register")
    done = threading.Event()

    def run() -> None:
        with pytest.raises(ConfigurationError):
            groundkit.get_embedder("nope")
        done.set()

    if sys.platform == "emscripten":  # Pyodide starts no threads: called as it is
        run()
    else:  # in a thread, so that a wait for itself fails the test instead of hanging it
        worker = threading.Thread(target=run, daemon=True)
        worker.start()
        worker.join(timeout=20)
    assert done.is_set(), "loading the plugins waited for itself"
    assert "flat" in vector_registry.VECTOR_STORES.names()


def test_a_name_the_application_registered_stays_its_own(fresh_plugins: Path) -> None:
    """Plugins load lazily: one must not replace what the application registered, whatever
    was looked up first."""
    install_plugin(fresh_plugins, "ghost_plugin", GHOST_PLUGIN, "ghost_plugin:register")
    mine = groundkit.HashEmbedder(64)
    groundkit.register_embedder("ghost", provider="me", model="mine", factory=lambda i: mine)
    with pytest.raises(ConfigurationError):
        groundkit.get_embedder("nope")  # loads the plugins
    assert groundkit.get_embedder("ghost") is mine
    assert rerankers.resolve_reranker("ghostly") is not None  # the plugin's other names came


BROKEN_COMMAND_PLUGIN = """
def _parser(commands, parents):
    raise RuntimeError("boom in add_parser")


def register(registry):
    registry.cli_command("broken", _parser, lambda args: 0)
"""


def test_a_plugin_command_that_cannot_add_its_parser_breaks_no_help(
    fresh_plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(fresh_plugins, "bad_cmd", BROKEN_COMMAND_PLUGIN, "bad_cmd:register")
    install_plugin(fresh_plugins, "ghost_plugin", GHOST_PLUGIN, "ghost_plugin:register")
    with pytest.raises(SystemExit) as shown:
        main(["--help"])
    assert shown.value.code == 0 and "hello" in capsys.readouterr().out
    assert main(["hello", "--collection", "x"]) == 0
    with pytest.raises(ConfigurationError, match=r"command broken.*boom in add_parser"):
        groundkit.get_embedder("nope")


EXITING_PLUGIN = """
import sys


def register(registry):
    registry.embedder("never", lambda identity: None, provider="x", model="y")
    sys.exit(7)
"""

INTERRUPTED_PLUGIN = """
def register(registry):
    raise KeyboardInterrupt
"""


@pytest.mark.parametrize(
    ("source", "named"),
    [(EXITING_PLUGIN, "SystemExit: 7"), (INTERRUPTED_PLUGIN, "KeyboardInterrupt")],
    ids=["exit", "interrupt"],
)
def test_a_plugin_that_exits_or_is_interrupted_is_disabled_and_named_in_the_help(
    fresh_plugins: Path,
    capsys: pytest.CaptureFixture[str],
    source: str,
    named: str,
    request: pytest.FixtureRequest,
) -> None:
    module = f"rude_{request.node.callspec.id}_plugin"  # a module name per case: none cached
    install_plugin(fresh_plugins, module, source, f"{module}:register")
    install_plugin(fresh_plugins, "ghost_plugin", GHOST_PLUGIN, "ghost_plugin:register")
    with pytest.raises(SystemExit) as shown:
        main(["--help"])
    out = capsys.readouterr().out
    assert shown.value.code == 0
    assert "hello" in out  # the other plugin's command is listed
    assert f"{module} ({module}:register: {named})" in out
    assert "never" not in embedder_registry.EMBEDDERS.names()  # nothing of it was kept


def test_every_unknown_name_message_names_the_plugin_that_failed(
    fresh_plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(fresh_plugins, "rude_plugin", EXITING_PLUGIN, "rude_plugin:register")
    lookups = [
        lambda: embedder_registry.resolve_embedder("nope"),
        lambda: embedder_registry.get_embedder("nope"),
        lambda: rerankers.resolve_reranker("nope"),
        lambda: vector_registry.vector_store_named("nope"),
        lambda: SHARD_ENGINES.get("nope"),
        lambda: COMMAND_REGISTRY.get("nope"),
    ]
    for lookup in lookups:
        with pytest.raises(ConfigurationError, match=r"rude_plugin .*SystemExit: 7"):
            lookup()
    identity = groundkit.extract.ExtractorIdentity("nope", "1", "plain", {})
    with pytest.raises(groundkit.IngestionError, match=r"rude_plugin .*SystemExit: 7"):
        extractor_registry.extractor_for_identity(identity, subject="a.nope")
    assert main(["nope"]) == 2  # an unknown command
    assert "invalid choice" in (err := capsys.readouterr().err) and "SystemExit: 7" in err


FAILING_EXTRACTOR_PLUGIN = """
def _factory():
    return 1 / 0


def register(registry):
    registry.extractor("zero", _factory, [".zero"])
"""


def test_a_failing_extractor_factory_refuses_its_file_and_the_ingest_goes_on(
    fresh_plugins: Path, tmp_path: Path
) -> None:
    install_plugin(fresh_plugins, "zero_plugin", FAILING_EXTRACTOR_PLUGIN, "zero_plugin:register")
    folder = tmp_path / "docs"
    folder.mkdir()
    (folder / "a.zero").write_text("never read", encoding="utf-8")
    (folder / "b.md").write_text("# Leaks\n\nReport a leak.\n", encoding="utf-8")
    settings = groundkit.IngestSettings(extensions=(".zero", ".md"))
    report = groundkit.ingest(folder, index_dir=tmp_path / "index", settings=settings)
    assert report.indexed == ["b.md"]
    assert [refusal.source for refusal in report.refused] == ["a.zero"]
    assert report.refused[0].reason == "extractor_failed"
    assert "ZeroDivisionError" in report.refused[0].message


CLASHING_PLUGIN = """
def register(registry):
    registry.cli_command("search", lambda commands, parents: None, lambda args: 9)
    registry.reranker("clasher", lambda: None)
"""


def test_a_command_named_as_a_core_one_is_ignored_and_named_and_the_rest_is_kept(
    fresh_plugins: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    install_plugin(fresh_plugins, "clash_plugin", CLASHING_PLUGIN, "clash_plugin:register")
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "clash_plugin (command search)" in capsys.readouterr().out
    assert COMMAND_REGISTRY.get("search").run is not None
    assert "clasher" in rerankers.RERANKERS.names()  # recorded whole, never half


SLOW_PLUGIN = """
import pathlib, time

pathlib.Path({marker!r}).write_text("imported")
time.sleep(600)


def register(registry):
    pass
"""


@pytest.mark.subprocess
def test_the_help_and_an_ingest_do_not_wait_on_a_slow_plugin(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    marker = tmp_path / "imported"
    install_plugin(site, "slow_plugin", SLOW_PLUGIN.format(marker=str(marker)), "slow_plugin:r")
    docs = tmp_path / "docs"
    docs.mkdir()
    (docs / "a.md").write_text("# Leaks\n\nReport a leak.\n", encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), *sys.path])}
    command = [sys.executable, "-m", "groundkit"]
    done = subprocess.run(
        [*command, "ingest", str(docs), "--index-dir", str(tmp_path / "i")],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert not marker.exists()  # plain text is the core's: no plugin was imported
    done = subprocess.run(
        [*command, "--help"], env=env, capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    assert marker.exists() and "slow_plugin (still loading" in done.stdout


@pytest.mark.subprocess
def test_loading_the_plugins_from_library_code_imports_no_cli_module() -> None:
    code = (
        "import json, sys, groundkit\n"
        "from groundkit.plugins import load_plugins, recorded\n"
        "before = set(sys.modules)\n"
        "load_plugins()\n"
        "assert recorded('embedder'), 'the native plugin is installed'\n"
        "print(json.dumps(sorted(m for m in set(sys.modules) - before if 'groundkit' in m)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    added = json.loads(done.stdout.strip().splitlines()[-1])
    assert [m for m in added if m.startswith("groundkit.cli")] == []
    assert len(added) <= 12, added
