"""Settings with their defaults and limits, validated on construction."""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from groundkit.errors import ConfigurationError

__all__ = [
    "DEFAULT_COLLECTION",
    "DEFAULT_EXCLUDE",
    "DEFAULT_EXTENSIONS",
    "DEFAULT_INDEX_DIR",
    "DEFAULT_LEG_DEPTH",
    "DEFAULT_MAX_FILE_BYTES",
    "DEFAULT_RERANK_DEPTH",
    "DEFAULT_RRF_K",
    "GROUP_DEPTH_PER_PAGE",
    "MAX_GROUP_PASSAGES",
    "MAX_LEG_DEPTH",
    "MAX_QUERY_CHARS",
    "MAX_RRF_K",
    "MAX_TOP_K",
    "VERSION",
    "BM25Params",
    "ChunkerSettings",
    "IngestSettings",
]

VERSION = "0.1.0"
"""This groundkit's version (``groundkit.__version__``; pyproject.toml holds the same)."""

MAX_TOP_K = 1000
"""Largest ``top_k`` a search accepts."""

DEFAULT_TOP_K = 10

DEFAULT_RRF_K = 60
"""Reciprocal-rank fusion constant (Cormack et al. 2009)."""

DEFAULT_LEG_DEPTH = 100
"""Candidates each leg of a hybrid search contributes to fusion (at least the results asked)."""

DEFAULT_RERANK_DEPTH = 50
"""Candidates handed to a reranker (at least ``top_k``)."""

MAX_QUERY_CHARS = 4096
"""Longest query accepted, in code points; longer ones are refused, never truncated."""
MAX_RRF_K = 1_000_000
"""The largest fusion constant (past it every rank's share rounds alike)."""
MAX_LEG_DEPTH = 100 * MAX_TOP_K
"""The most candidates a hybrid leg may fetch."""
MAX_GROUP_PASSAGES = 100
"""The most passages a grouped page lists."""
GROUP_DEPTH_PER_PAGE = 10
"""A grouped search ranks this many passages per page asked for (at least 100)."""

DEFAULT_MAX_FILE_BYTES = 10 * 1024 * 1024
DEFAULT_EXCLUDE: tuple[str, ...] = ("_theme", "_templates", "_static", "node_modules")
"""Folders a documentation tree holds that are not documents (Sphinx themes and templates,
copied static assets, JavaScript dependencies); ``exclude=()`` reads them too."""

DEFAULT_EXTENSIONS: tuple[str, ...] = (
    ".md",
    ".markdown",
    ".txt",
    ".rst",
    ".html",
    ".htm",
    ".pdf",
)
"""Text formats are read as they are; .html/.htm and .pdf through an extractor (adr/0021)."""
DEFAULT_INDEX_DIR = ".groundkit"
DEFAULT_COLLECTION = "default"


@dataclass(frozen=True, slots=True)
class BM25Params:
    """Lucene BM25 parameters; the defaults are chosen in adr/0004-bm25-defaults.md."""

    k1: float = 1.2
    """Term-frequency saturation: how fast repeats of a word stop adding score."""
    b: float = 0.75
    """Length normalisation, 0 (none) to 1 (full): how much long passages are discounted."""

    def __post_init__(self) -> None:
        if not (math.isfinite(self.k1) and self.k1 >= 0):
            raise ConfigurationError(f"BM25 k1 must be a finite number >= 0, got {self.k1!r}")
        if not (math.isfinite(self.b) and 0 <= self.b <= 1):
            raise ConfigurationError(f"BM25 b must be between 0 and 1, got {self.b!r}")


@dataclass(frozen=True, slots=True)
class ChunkerSettings:
    """Chunk sizes in code points: aim for ``target_chars``; overlap split pieces."""

    target_chars: int = 1000
    """The passage size aimed at, in code points (64 to 100000)."""
    overlap_chars: int = 100
    """Code points repeated between two pieces of one split block."""

    def __post_init__(self) -> None:
        if not 64 <= self.target_chars <= 100_000:
            raise ConfigurationError(
                f"chunk target_chars must be between 64 and 100000, got {self.target_chars!r}"
            )
        if not 0 <= self.overlap_chars <= self.target_chars // 2:
            raise ConfigurationError(
                "chunk overlap_chars must be between 0 and half of target_chars "
                f"({self.target_chars // 2}), got {self.overlap_chars!r}"
            )

    def identity(self) -> dict[str, object]:
        return {"target_chars": self.target_chars, "overlap_chars": self.overlap_chars}


@dataclass(frozen=True, slots=True)
class IngestSettings:
    """Which files an ingest reads, and the size above which a file is refused."""

    max_file_bytes: int = DEFAULT_MAX_FILE_BYTES
    """Files larger than this are refused (``too_large``), not truncated."""
    extensions: tuple[str, ...] = DEFAULT_EXTENSIONS
    """The file extensions read (``.md``, ``.txt``, ...); others are counted as skipped."""
    chunker: ChunkerSettings = field(default_factory=ChunkerSettings)
    """How documents are cut into passages."""
    exclude: tuple[str, ...] = DEFAULT_EXCLUDE
    """Glob patterns of files and folders not read: matched against a name (``_theme``,
    ``*.min.html``) or a path under the root (``drafts/*``, ``docs/internal``)."""

    def __post_init__(self) -> None:
        if self.max_file_bytes < 1:
            raise ConfigurationError(
                f"max_file_bytes must be a positive number of bytes, got {self.max_file_bytes!r}"
            )
        bad = [ext for ext in self.extensions if not ext.startswith(".") or len(ext) < 2]
        if bad or not self.extensions:
            raise ConfigurationError(
                f"extensions must be a non-empty list like ('.md', '.txt'), got {self.extensions!r}"
            )
