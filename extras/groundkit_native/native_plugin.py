"""The native extra's plugin: ``minilm``, ONNX model folders, the ``usearch`` vector stores.

The entry point ``native`` of the group ``groundkit.plugins`` (adr/0053). Registering imports
nothing heavy: each factory imports its module (and with it onnxruntime, tokenizers, numpy or
usearch) when it is called, and a missing one is a ``ConfigurationError`` naming the pip extra.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from groundkit.extend import import_extra

if TYPE_CHECKING:
    from groundkit.extend import (
        CollectionReader,
        Embedder,
        EmbeddingIdentity,
        PluginRegistry,
        Reranker,
        VectorStore,
    )

__all__ = ["register"]

MINILM_PROVIDER = "onnx"
MINILM_MODEL = "all-MiniLM-L6-v2"


def _minilm(identity: EmbeddingIdentity | None) -> Embedder:
    module = import_extra("groundkit_native.onnx_embedder", extra="onnx", what="embedder 'minilm'")
    embedder: Embedder = module.minilm_factory(identity)
    return embedder


def _embedder_folder(folder: Path) -> Embedder:
    module = import_extra(
        "groundkit_native.onnx_embedder", extra="onnx", what=f"model folder {folder}"
    )
    embedder: Embedder = module.OnnxEmbedder.from_dir(folder)
    return embedder


def _reranker_folder(folder: Path) -> Reranker:
    module = import_extra("groundkit_native.onnx_reranker", extra="onnx", what=f"reranker {folder}")
    reranker: Reranker = module.OnnxCrossEncoder.from_dir(folder)
    return reranker


def _usearch(reader: CollectionReader, identity: EmbeddingIdentity, location: str) -> VectorStore:
    module = import_extra(
        "groundkit_native.usearch_store", extra="usearch", what="vector store 'usearch'"
    )
    store: VectorStore = module.load(reader, identity, location)
    return store


def _usearch_exact(
    reader: CollectionReader, identity: EmbeddingIdentity, location: str
) -> VectorStore:
    module = import_extra(
        "groundkit_native.usearch_store", extra="usearch", what="vector store 'usearch_exact'"
    )
    store: VectorStore = module.load_exact(reader, identity, location)
    return store


def register(registry: PluginRegistry) -> None:
    """Add the native extra's embedder, folder loaders and vector stores to ``registry``."""
    registry.embedder("minilm", _minilm, provider=MINILM_PROVIDER, model=MINILM_MODEL)
    registry.embedder_folder(_embedder_folder)
    registry.reranker_folder(_reranker_folder)
    registry.vector_store("usearch", _usearch)
    registry.vector_store("usearch_exact", _usearch_exact)
