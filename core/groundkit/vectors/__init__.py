"""Vector search: the store protocol, the exact pure-Python store, the stored vector form."""

from __future__ import annotations

from groundkit.vectors.exact import ExactVectorStore
from groundkit.vectors.loading import load_vectors
from groundkit.vectors.packing import pack_vector, unpack_vector
from groundkit.vectors.vector_store import TieKeys, VectorStore

__all__ = [
    "ExactVectorStore",
    "TieKeys",
    "VectorStore",
    "load_vectors",
    "pack_vector",
    "unpack_vector",
]
