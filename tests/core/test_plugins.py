"""Native extras are found by name without importing them, and a missing one names the fix."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import groundkit
from groundkit import ConfigurationError, Retriever, plugins
from groundkit.embedding import embedder_registry
from groundkit.vectors import store_registry as vector_registry


@pytest.mark.subprocess
def test_native_names_are_listed_without_importing_the_extras() -> None:
    code = (
        "import sys, groundkit, groundkit.cli.app\n"
        "from groundkit.embedding.embedder_registry import available_embedders\n"
        "from groundkit.vectors.store_registry import available_vector_stores\n"
        "groundkit.cli.app.build_parser()\n"
        "assert 'minilm' in available_embedders(), available_embedders()\n"
        "assert 'usearch' in available_vector_stores(), available_vector_stores()\n"
        "loaded = [m for m in sys.modules if m.split('.')[0] in "
        "('groundkit_native', 'onnxruntime', 'usearch', 'numpy', 'tokenizers')]\n"
        "assert not loaded, loaded\n"
        "print('ok')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


@pytest.fixture()
def missing_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(
        plugins.EXTRAS, "embedder:ghost", plugins.NamedExtra("groundkit_no_such:factory", "ghost")
    )
    monkeypatch.setitem(
        plugins.EXTRAS, "vector-store:ghost", plugins.NamedExtra("no_such:load", "ghost")
    )
    monkeypatch.setitem(
        embedder_registry._LAZY,
        "ghost",
        embedder_registry._LazyEntry("ghostco", "ghost-1", "embedder:ghost"),
    )
    monkeypatch.setitem(vector_registry._LAZY, "ghoststore", "vector-store:ghost")


@pytest.mark.usefixtures("missing_extra")
def test_a_missing_extra_names_the_pip_install() -> None:
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[ghost\]"'):
        embedder_registry.get_embedder("ghost")
    assert "ghost" in embedder_registry.available_embedders()
    with pytest.raises(ConfigurationError, match=r'pip install "\.\[ghost\]"'):
        vector_registry.load_vector_store("ghoststore", None, None, location="x")  # type: ignore[arg-type]
    with pytest.raises(ConfigurationError, match="unknown vector store"):
        vector_registry.load_vector_store("nope", None, None, location="x")  # type: ignore[arg-type]


@pytest.mark.usefixtures("missing_extra")
def test_a_collection_of_a_missing_extra_still_answers_bm25(tmp_path: Path) -> None:
    from groundkit.embedding.hashing import HashEmbedder
    from groundkit.manifest import EmbeddingIdentity

    class Ghost(HashEmbedder):
        @property
        def identity(self) -> EmbeddingIdentity:
            return EmbeddingIdentity("ghostco", "ghost-1", "1", 256)

    groundkit.ingest(groundkit.sample_corpus() / "billing", index_dir=tmp_path, embedder=Ghost())
    with Retriever.open(tmp_path) as retriever:
        assert retriever.search("pay my bill").results
        with pytest.raises(ConfigurationError, match=r"\.\[ghost\]"):
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
    with Retriever.open(tmp_path) as retriever:
        response = retriever.search("pay my bill", mode="dense")
        assert response.metadata["vector_store"] == "exact"
    (tmp_path / "default" / vector_registry.RECORD_FILE).write_text("[1]", encoding="utf-8")
    with pytest.raises(ConfigurationError, match="names no vector store"):
        vector_registry.recorded_vector_store(location)
