"""The ``hash`` embedder: deterministic feature hashing, for tests and demos.

Each analysed term and each character trigram of it (with ``<`` ``>`` word boundaries) is
hashed with BLAKE2b into one of ``dimensions`` buckets with a sign; the sums are L2-normalised.
It carries no semantic signal (its identity says so): texts are close when they share words or
word pieces, never because they mean the same. Python's ``hash()`` is never used (it is salted
per process).
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Sequence

from groundkit.analysis.analyzer import ANALYZER_VERSION, Analyzer
from groundkit.errors import IndexIdentityError
from groundkit.manifest import EmbeddingIdentity

__all__ = ["DEFAULT_DIMENSIONS", "HASH_REVISION", "HashEmbedder"]

DEFAULT_DIMENSIONS = 256
HASH_REVISION = f"1+analyzer{ANALYZER_VERSION}"
"""Bumped whenever the vectors produced for some text change."""

_TERM_WEIGHT = 1.0
_TRIGRAM_WEIGHT = 0.5
_CACHE_LIMIT = 1 << 18
_PERSON = b"groundkit-hash"


class HashEmbedder:
    """Feature-hashing embedder: terms and character trigrams into ``dimensions`` buckets."""

    def __init__(self, dimensions: int = DEFAULT_DIMENSIONS) -> None:
        self._identity = EmbeddingIdentity(
            provider="groundkit",
            model="hash",
            revision=HASH_REVISION,
            dimensions=dimensions,
            pooling="sum",
            normalization="l2",
            similarity="cosine",
            semantic=False,
        )
        self._dimensions = dimensions
        self._analyzer = Analyzer(stemmer="porter", stopwords="lucene-english")
        self._buckets: dict[str, tuple[int, float]] = {}

    @classmethod
    def from_identity(cls, identity: EmbeddingIdentity) -> HashEmbedder:
        """The hash embedder with exactly ``identity``, or ``IndexIdentityError`` if none."""
        candidate = cls(identity.dimensions)
        if candidate.identity != identity:
            raise IndexIdentityError(
                f"embedding {identity.to_json()} cannot be reproduced by this groundkit (its hash "
                f"embedder is revision {HASH_REVISION}); re-ingest into a new collection",
                subject="hash",
                expected=identity.to_json(),
                found=candidate.identity.to_json(),
            )
        return candidate

    @property
    def identity(self) -> EmbeddingIdentity:
        return self._identity

    @property
    def similarity_floor(self) -> float:
        """Below this a passage is taken as unrelated (chosen on the sample corpus: adr/0008)."""
        return 0.25

    def embed_documents(self, texts: Sequence[str]) -> list[list[float]]:
        return [self._embed(text) for text in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._embed(text)

    def _bucket(self, feature: str) -> tuple[int, float]:
        found = self._buckets.get(feature)
        if found is None:
            digest = hashlib.blake2b(feature.encode(), digest_size=8, person=_PERSON).digest()
            value = int.from_bytes(digest, "little")
            found = (value >> 1) % self._dimensions, (1.0 if value & 1 else -1.0)
            if len(self._buckets) >= _CACHE_LIMIT:
                self._buckets.clear()
            self._buckets[feature] = found
        return found

    def _embed(self, text: str) -> list[float]:
        vector = [0.0] * self._dimensions
        for term in self._analyzer.terms(text):
            index, sign = self._bucket("t:" + term)
            vector[index] += sign * _TERM_WEIGHT
            padded = f"<{term}>"
            for i in range(len(padded) - 2):
                index, sign = self._bucket("c:" + padded[i : i + 3])
                vector[index] += sign * _TRIGRAM_WEIGHT
        norm = math.sqrt(math.fsum(x * x for x in vector))
        return vector if norm == 0.0 else [x / norm for x in vector]
