"""usearch HNSW vector store: a derived ANN index over the collection's SQLite vectors.

SQLite stays the source of truth (adr/0009); the index is rebuilt or refreshed from a reader's
read view whenever the collection's generation moved since it was saved, so a crash between the
SQLite commit and the index save loses nothing (adr/0013). Files beside ``collection.sqlite``::

    vectors-usearch.json          the commit record: generation, identity, metric, dtype, files
    vectors-g<GEN>.usearch        the HNSW index of generation GEN
    vectors-g<GEN>.keys.npy       [chunk key, BLAKE2b-64 of the stored vector] per vector

The metric follows the manifest (cosine -> ``cos``, dot -> ``ip``), the dtype is pinned
(``f32`` by default, not usearch's CPU-dependent default). Large indexes are memory-mapped
(``view``). Keys are SQLite chunk keys; a key the read view no longer holds is removed from the
index in the refresh that sees its chunk gone, a changed vector is replaced.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit import RetrievalError, StorageError
from groundkit.extend import (
    CollectionReader,
    ConfigurationError,
    EmbeddingIdentity,
    TieKeys,
    install_hint,
    select_top_k,
)

__all__ = ["RECORD", "UsearchSettings", "UsearchVectorStore", "load", "load_exact"]

# The import-order guard: usearch 2.26.2-2.26.6 imported before onnxruntime makes onnxruntime's
# initialisation crash the process (SIGSEGV in libstdc++'s codecvt), so onnxruntime, where it is
# installed, is imported here, before this module can import usearch. The ONNX modules refuse to
# import onnxruntime after usearch (``_runtime.import_onnxruntime``): either order holds.
try:
    if "onnxruntime" not in sys.modules and "usearch" not in sys.modules:
        import onnxruntime  # noqa: F401
except ImportError:  # the usearch-only extra: nothing to guard
    pass

RECORD = "vectors-usearch.json"
FORMAT = 1
VIEW_BYTES = 64 << 20
"""Indexes larger than this are memory-mapped (read-only) instead of loaded."""
COMPACT_RATIO = 0.25
"""Rebuild from scratch when more than this share of the index was removed since its build."""


def _usearch() -> Any:
    try:
        from usearch import index
    except ImportError as exc:
        raise ConfigurationError(
            f"the usearch extra is not installed ({exc}); install it with: "
            f"{install_hint('usearch')}",
            subject="usearch",
        ) from None
    return index


@dataclass(frozen=True, slots=True)
class UsearchSettings:
    """HNSW settings; defaults give recall@10 >= 0.99 on bench/vectors_speed.py (adr/0013)."""

    dtype: str = "f32"
    connectivity: int = 16
    expansion_add: int = 128
    expansion_search: int = 256
    exact: bool = False


class UsearchVectorStore:
    """Approximate (HNSW) or exact (``settings.exact``) search through usearch."""

    def __init__(
        self,
        dimensions: int,
        similarity: str = "cosine",
        settings: UsearchSettings | None = None,
        *,
        index: Any = None,
    ) -> None:
        if similarity not in ("cosine", "dot"):
            raise ValueError(f"similarity must be cosine or dot, got {similarity!r}")
        self._dimensions = dimensions
        self._similarity = similarity
        self.settings = settings or UsearchSettings()
        self.viewed = False
        if index is None:
            s = self.settings
            index = _usearch().Index(
                ndim=dimensions,
                metric=self.metric,
                dtype=s.dtype,
                connectivity=s.connectivity,
                expansion_add=s.expansion_add,
                expansion_search=s.expansion_search,
            )
        self.index = index

    @property
    def metric(self) -> str:
        return "cos" if self._similarity == "cosine" else "ip"

    @property
    def dimensions(self) -> int:
        return self._dimensions

    @property
    def similarity(self) -> str:
        return self._similarity

    def _writable(self) -> None:
        if self.viewed:  # a memory-mapped index is read-only: copy it into memory first
            data = self.index.save()
            fresh = _usearch().Index.restore(data)
            fresh.expansion_search = self.settings.expansion_search
            self.index, self.viewed = fresh, False

    def add(self, keys: Sequence[int], vectors: Sequence[Sequence[float]] | Any) -> None:
        import numpy as np

        if len(keys) != len(vectors):
            raise ValueError(f"{len(keys)} keys but {len(vectors)} vectors")
        if not len(keys):
            return
        matrix = np.asarray(vectors, dtype=np.float32).reshape(len(keys), -1)
        if matrix.shape[1] != self._dimensions:
            raise ValueError(
                f"vector has {matrix.shape[1]} dimensions, this store holds {self._dimensions}"
            )
        if not np.isfinite(matrix).all():
            raise ValueError("vector holds NaN or infinity")
        self._writable()
        ids = np.asarray(keys, dtype=np.uint64)
        present = [int(k) for k in ids if self.index.contains(int(k))]
        if present:
            self.index.remove(np.asarray(present, dtype=np.uint64))
        self.index.add(ids, matrix)

    def delete(self, keys: Sequence[int]) -> None:
        import numpy as np

        if len(keys):
            self._writable()
            self.index.remove(np.asarray(list(keys), dtype=np.uint64))

    def count(self) -> int:
        return len(self.index)

    def search(
        self,
        query: Sequence[float],
        k: int,
        *,
        min_score: float | None = None,
        tie_keys: TieKeys | None = None,
    ) -> list[tuple[int, float]]:
        import numpy as np

        vector = np.asarray(query, dtype=np.float32)
        if vector.shape != (self._dimensions,):
            raise ValueError(
                f"vector has {vector.size} dimensions, this store holds {self._dimensions}"
            )
        if not len(self.index) or k < 1:
            return []
        count = min(k, len(self.index))
        matches = self.index.search(vector, count=count, exact=self.settings.exact)
        scores = {  # usearch distances: cos = 1 - cosine, ip = 1 - dot
            int(key): 1.0 - float(distance)
            for key, distance in zip(matches.keys.tolist(), matches.distances.tolist(), strict=True)
        }
        return select_top_k(scores, k, tie_keys, min_score)


def _digest(blob: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(blob, digest_size=8).digest(), "little")


def _stored_vectors(
    reader: CollectionReader, identity: EmbeddingIdentity, location: str
) -> tuple[Any, Any, dict[int, bytes]]:
    """(keys, digests) of every vector of the read view, and the blobs; checked as the core does."""
    import numpy as np

    chunk_keys = {key for key, _ in reader.chunk_lengths()}
    blobs: dict[int, bytes] = {}
    orphans = 0
    for key, blob in reader.vectors():
        if key not in chunk_keys:
            orphans += 1
            continue
        if len(blob) != 4 * identity.dimensions:
            raise StorageError(
                f"collection {location}: the vector of chunk key {key} is damaged; re-ingest "
                "into a new collection",
                subject=location,
            )
        blobs[key] = blob
    if orphans:
        raise RetrievalError(
            f"collection {location}: {orphans} vector(s) belong to no chunk; the collection is "
            "inconsistent: run `groundkit verify` and re-ingest",
            subject=location,
            verdict="unresolvable",
        )
    if len(blobs) != len(chunk_keys):
        raise StorageError(
            f"collection {location} lacks vectors for {len(chunk_keys) - len(blobs)} of its "
            f"{len(chunk_keys)} chunks; the dense side is damaged: re-ingest into a new collection",
            subject=location,
        )
    keys = np.fromiter(sorted(blobs), dtype=np.uint64, count=len(blobs))
    digests = np.fromiter((_digest(blobs[int(k)]) for k in keys), dtype=np.uint64, count=len(keys))
    return keys, digests, blobs


def _matrix(blobs: dict[int, bytes], keys: Any, dimensions: int) -> Any:
    import numpy as np

    if not len(keys):
        return np.zeros((0, dimensions), dtype=np.float32)
    joined = b"".join(blobs[int(k)] for k in keys)
    return np.frombuffer(joined, dtype="<f4").reshape(len(keys), dimensions).astype(np.float32)


class _Record:
    """The commit record beside a collection file, and the files it names."""

    def __init__(self, collection_file: Path) -> None:
        self.folder = collection_file.parent
        self.path = self.folder / RECORD

    def read(self) -> dict[str, Any] | None:
        try:
            raw = json.loads(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None  # absent or torn: the index is derived, rebuild it
        return raw if isinstance(raw, dict) and raw.get("format") == FORMAT else None

    def files(self, generation: int) -> tuple[Path, Path]:
        return (
            self.folder / f"vectors-g{generation}.usearch",
            self.folder / f"vectors-g{generation}.keys.npy",
        )

    def write(self, store: UsearchVectorStore, record: dict[str, Any], keys: Any) -> None:
        import numpy as np

        index_file, keys_file = self.files(record["generation"])
        temporary = index_file.with_suffix(".usearch.tmp")
        store.index.save(str(temporary))
        os.replace(temporary, index_file)
        with open(keys_file.with_suffix(".tmp"), "wb") as handle:
            np.save(handle, keys)
        os.replace(keys_file.with_suffix(".tmp"), keys_file)
        text = json.dumps(record, sort_keys=True) + "\n"
        self.path.with_suffix(".tmp").write_text(text, encoding="utf-8")
        os.replace(self.path.with_suffix(".tmp"), self.path)  # the commit point
        for stale in self.folder.glob("vectors-g*.*"):
            if stale not in (index_file, keys_file):
                stale.unlink(missing_ok=True)


def _expected(identity: EmbeddingIdentity, settings: UsearchSettings) -> dict[str, Any]:
    return {
        "format": FORMAT,
        "identity": identity.to_json(),
        "metric": "cos" if identity.similarity == "cosine" else "ip",
        "dtype": settings.dtype,
        "connectivity": settings.connectivity,
        "expansion_add": settings.expansion_add,
    }


def open_store(
    reader: CollectionReader,
    identity: EmbeddingIdentity,
    location: str,
    settings: UsearchSettings | None = None,
    *,
    persist: bool = True,
) -> UsearchVectorStore:
    """The usearch store of ``reader``'s read view: loaded when saved at its generation, else
    refreshed (removals, replacements, additions) or rebuilt from the SQLite vectors, and saved
    beside the collection when the read view is newer than what is saved."""
    import numpy as np

    settings = settings or UsearchSettings()
    path = Path(location)
    record_io = _Record(path) if path.is_file() else None
    saved = record_io.read() if record_io is not None else None
    expected = _expected(identity, settings)
    generation = reader.generation
    compatible = saved is not None and all(saved.get(k) == v for k, v in expected.items())
    if record_io is not None and saved is not None and compatible:
        index_file, keys_file = record_io.files(int(saved["generation"]))
        if saved["generation"] == generation and index_file.is_file():
            return _restore(index_file, identity, settings)
    keys, digests, blobs = _stored_vectors(reader, identity, location)
    store: UsearchVectorStore | None = None
    removed_total = 0
    if record_io is not None and saved is not None and compatible:
        index_file, keys_file = record_io.files(int(saved["generation"]))
        try:
            old = np.load(keys_file)
            store = _restore(index_file, identity, settings, view=False)
        except (OSError, ValueError, ConfigurationError):
            store = None
        if store is not None:
            old_digest = dict(zip(old[:, 0].tolist(), old[:, 1].tolist(), strict=True))
            new_digest = dict(zip(keys.tolist(), digests.tolist(), strict=True))
            gone = [k for k, d in old_digest.items() if new_digest.get(k) != d]
            removed_total = int(saved.get("removed", 0)) + len(gone)
            if removed_total > COMPACT_RATIO * max(len(new_digest), 1):
                store = None  # too many tombstones: rebuild
            else:
                store.delete(gone)
                fresh = np.asarray(
                    [k for k, d in new_digest.items() if old_digest.get(k) != d], dtype=np.uint64
                )
                store.add(fresh.tolist(), _matrix(blobs, fresh, identity.dimensions))
    if store is None:
        removed_total = 0
        store = UsearchVectorStore(identity.dimensions, identity.similarity, settings)
        store.add(keys.tolist(), _matrix(blobs, keys, identity.dimensions))
    newer = saved is None or not compatible or generation > int(saved["generation"])
    if persist and record_io is not None and newer:
        record = {**expected, "generation": generation, "count": len(keys)}
        record["removed"] = removed_total
        with contextlib.suppress(OSError):  # a read-only folder: searches work from memory
            record_io.write(store, record, np.stack([keys, digests], axis=1))
    return store


def _restore(
    index_file: Path,
    identity: EmbeddingIdentity,
    settings: UsearchSettings,
    *,
    view: bool | None = None,
) -> UsearchVectorStore:
    if view is None:
        view = index_file.stat().st_size > VIEW_BYTES
    index = _usearch().Index.restore(str(index_file), view=view)
    if index is None or index.ndim != identity.dimensions:
        raise ConfigurationError(f"{index_file} is not a usable usearch index")
    index.expansion_search = settings.expansion_search
    store = UsearchVectorStore(identity.dimensions, identity.similarity, settings, index=index)
    store.viewed = view
    return store


def load(reader: CollectionReader, identity: EmbeddingIdentity, location: str) -> Any:
    """The ``usearch`` vector store (HNSW) of a read view (``VectorStoreLoader``)."""
    return open_store(reader, identity, location)


def load_exact(reader: CollectionReader, identity: EmbeddingIdentity, location: str) -> Any:
    """The ``usearch_exact`` vector store: the same index, searched exhaustively."""
    return open_store(reader, identity, location, UsearchSettings(exact=True))
