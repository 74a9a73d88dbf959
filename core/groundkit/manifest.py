"""The embedding manifest: which embedder produced a collection's vectors, as strict JSON.

A collection is bound to one ``EmbeddingIdentity`` with its first dense write; ingest and search
compare identities before touching a vector, and a mismatch is refused (adr/0009).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, fields
from typing import Any, Literal, TypeAlias

from groundkit import codec

__all__ = [
    "MANIFEST_VERSION",
    "NORMALIZATIONS",
    "SIMILARITIES",
    "EmbeddingIdentity",
    "ManifestError",
    "Normalization",
    "Similarity",
]

MANIFEST_VERSION = 1
"""Version of the manifest's JSON shape (not of any model)."""

Similarity: TypeAlias = Literal["cosine", "dot"]
Normalization: TypeAlias = Literal["l2", "none"]
SIMILARITIES: tuple[str, ...] = ("cosine", "dot")
NORMALIZATIONS: tuple[str, ...] = ("l2", "none")
_DTYPES = ("float32",)
MAX_DIMENSIONS = 65_536
_FIELD_TYPES: dict[str, type] = {"dimensions": int, "manifest_version": int, "semantic": bool}


class ManifestError(ValueError):
    """A manifest (or identity) is malformed; the message names the field at fault."""


@dataclass(frozen=True, slots=True)
class EmbeddingIdentity:
    """Everything that decides the vectors an embedder produces, and how they are compared.

    ``revision`` names the exact weights (a release tag, or a hash of the model file).
    ``semantic`` is False for embedders that carry no meaning (the ``hash`` embedder), so a
    person reading ``groundkit status`` is not misled.
    """

    provider: str
    """Who made the embedder (``hash``, ``onnx``, a plugin's name)."""
    model: str
    """The model's name."""
    revision: str
    """The exact weights: a release tag, or a hash of the model file."""
    dimensions: int
    """The length of each vector."""
    dtype: str = "float32"
    """The stored number type (``float32``)."""
    pooling: str = "mean"
    """How token vectors become one (``mean``; ``sum`` for ``hash``)."""
    normalization: Normalization = "l2"
    """How each vector is normalised before storing (``l2``, ``none``)."""
    similarity: Similarity = "cosine"
    """How two vectors are compared (``cosine``, ``dot``)."""
    semantic: bool = True
    """False for an embedder that carries no meaning (``hash``), so status says so."""

    def __post_init__(self) -> None:
        for name in ("provider", "model", "revision", "pooling"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value:
                raise ManifestError(f"embedding identity: {name} must be a non-empty string")
        dims = self.dimensions
        if isinstance(dims, bool) or not isinstance(dims, int) or not 1 <= dims <= MAX_DIMENSIONS:
            raise ManifestError(
                f"embedding identity: dimensions must be an integer from 1 to {MAX_DIMENSIONS}, "
                f"got {dims!r}"
            )
        _one_of("dtype", self.dtype, _DTYPES)
        _one_of("normalization", self.normalization, NORMALIZATIONS)
        _one_of("similarity", self.similarity, SIMILARITIES)
        if not isinstance(self.semantic, bool):
            raise ManifestError(
                f"embedding identity: semantic must be true or false, got {self.semantic!r}"
            )

    def to_dict(self) -> dict[str, Any]:
        """The manifest object, with its format version."""
        return {"manifest_version": MANIFEST_VERSION, **asdict(self)}

    def to_json(self) -> str:
        """Canonical JSON (the stored form; equal identities give equal strings)."""
        return codec.encode(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> EmbeddingIdentity:
        """Decode a stored manifest strictly: unknown or missing fields and wrong types refused."""
        try:
            raw = codec.decode(text)
        except ValueError as exc:
            raise ManifestError(f"embedding manifest is not valid JSON: {exc}") from None
        return cls.from_dict(raw)

    @classmethod
    def from_dict(cls, raw: object) -> EmbeddingIdentity:
        """Strict counterpart of ``to_dict``."""
        if not isinstance(raw, dict):
            raise ManifestError(f"embedding manifest must be a JSON object, got {_kind(raw)}")
        known = {f.name: f for f in fields(cls)}
        unknown = sorted(set(raw) - set(known) - {"manifest_version"})
        if unknown:
            raise ManifestError(f"embedding manifest has unknown field(s): {', '.join(unknown)}")
        version = raw.get("manifest_version")
        if version != MANIFEST_VERSION or isinstance(version, bool):
            raise ManifestError(
                f"embedding manifest_version must be {MANIFEST_VERSION}, got {version!r}; "
                "a newer groundkit wrote it: upgrade to read it"
            )
        missing = sorted(set(known) - set(raw))
        if missing:
            raise ManifestError(f"embedding manifest lacks field(s): {', '.join(missing)}")
        for name, value in raw.items():
            want: type = _FIELD_TYPES.get(name, str)
            if type(value) is not want:
                raise ManifestError(
                    f"embedding manifest field {name} must be {want.__name__}, got {_kind(value)}"
                )
        values = {name: raw[name] for name in known}
        return cls(**values)


def _one_of(name: str, value: object, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ManifestError(
            f"embedding identity: {name} must be one of {', '.join(allowed)}, got {value!r}"
        )


def _kind(value: object) -> str:
    if isinstance(value, float) and not math.isfinite(value):
        return "a non-finite number"
    return type(value).__name__
