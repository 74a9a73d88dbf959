"""The page's query embedder: a vector computed outside Python, under a checked identity.

In the browser (ADR 0035) onnxruntime-web runs the model asynchronously in JavaScript, while
the core's search is synchronous: the worker tokenizes the query here (``tokenize``), runs the
model, and hands the pooled vector back (``give``) before it searches. ``for_identity`` claims
the collection's identity only when the model file's SHA-256 (hashed by the page) and the
tokenizer file's match the identity's revision, as ``groundkit_native``'s ONNX embedder
writes it (``sha256:<16 hex>;tokenizer:<16 hex>;max_length:<n>``); otherwise it fails closed.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from groundkit.embedding.wordpiece import WordPiece
from groundkit.errors import ConfigurationError, IndexIdentityError
from groundkit.manifest import EmbeddingIdentity

__all__ = ["GivenQueryEmbedder", "revision_parts"]


def revision_parts(revision: str) -> dict[str, str]:
    """``sha256:a;tokenizer:b;max_length:256`` -> {"sha256": "a", "tokenizer": "b", ...}."""
    parts: dict[str, str] = {}
    for item in revision.split(";"):
        key, sep, value = item.partition(":")
        if not sep or not key or key in parts:
            return {}
        parts[key] = value
    return parts


class GivenQueryEmbedder:
    """Returns the vector given for a query; never embeds passages (they ship with the site)."""

    def __init__(self, identity: EmbeddingIdentity, tokenizer: WordPiece, floor: float) -> None:
        self._identity = identity
        self.tokenizer = tokenizer
        self._floor = floor
        self._given: tuple[str, list[float]] | None = None

    @classmethod
    def for_identity(
        cls,
        identity: EmbeddingIdentity,
        *,
        model_sha256: str,
        tokenizer_json: bytes,
        floor: float,
    ) -> GivenQueryEmbedder:
        """The embedder of ``identity``, if the fetched files are the ones it names."""
        parts = revision_parts(identity.revision)
        expected = set(parts) == {"sha256", "tokenizer", "max_length"}
        found = (
            f"sha256:{model_sha256.lower()[:16]};"
            f"tokenizer:{hashlib.sha256(tokenizer_json).hexdigest()[:16]};"
            f"max_length:{parts.get('max_length', '?')}"
        )
        if not expected or found != identity.revision or not parts["max_length"].isdigit():
            raise IndexIdentityError(
                f"the page's model files do not reproduce this collection's embedding "
                f"{identity.model} ({identity.revision}); they give {found}: rebuild the site",
                subject=identity.model,
                expected=identity.revision,
                found=found,
            )
        if identity.pooling != "mean" or identity.normalization != "l2":
            raise ConfigurationError(
                f"the page pools by mean with L2 normalisation; {identity.model} uses "
                f"{identity.pooling}/{identity.normalization}",
                subject=identity.model,
            )
        tokenizer = WordPiece.from_bytes(tokenizer_json, max_length=int(parts["max_length"]))
        return cls(identity, tokenizer, floor)

    @property
    def identity(self) -> EmbeddingIdentity:
        return self._identity

    @property
    def similarity_floor(self) -> float:
        return self._floor

    def tokenize(self, query: str) -> list[int]:
        """The model's input ids for ``query`` (``[CLS] ... [SEP]``)."""
        return self.tokenizer.encode(query)

    def give(self, query: str, vector: Sequence[float]) -> None:
        """The vector of ``query``, as the page computed it (``identity.dimensions`` floats)."""
        values = [float(x) for x in vector]
        if len(values) != self._identity.dimensions or not all(map(math.isfinite, values)):
            raise ConfigurationError(
                f"a query vector must be {self._identity.dimensions} finite floats, got "
                f"{len(values)}",
                subject="query vector",
            )
        self._given = (query, values)

    def embed_query(self, text: str) -> list[float]:
        if self._given is None or self._given[0] != text:
            raise ConfigurationError(
                "no query vector was given for this query: the page embeds it before searching",
                subject="query vector",
            )
        return list(self._given[1])

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        raise ConfigurationError(
            "the page embeds only queries; passages are embedded when the site is built",
            subject=self._identity.model,
        )
