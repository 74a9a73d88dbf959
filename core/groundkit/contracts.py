"""Frozen, validated value types shared by every layer.

Offsets are 0-based, end-exclusive indices into the decoded source, counted in Unicode code
points (Python ``str`` indices). Line numbers are 1-based and only for people.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

__all__ = [
    "SOURCE_CLASSES",
    "Chunk",
    "Citation",
    "Document",
    "SearchResult",
    "SourceClass",
    "chunk_id_for",
    "content_hash",
    "document_id_for",
    "frozen_mapping",
]

SourceClass: TypeAlias = Literal["text", "extracted", "snapshot"]
SOURCE_CLASSES: frozenset[str] = frozenset({"text", "extracted", "snapshot"})
IMPLEMENTED_SOURCE_CLASSES: frozenset[str] = frozenset({"text", "extracted", "snapshot"})


def content_hash(text: str) -> str:
    """SHA-256 of the UTF-8 bytes of ``text``, hex."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def document_id_for(source: str, text_hash: str) -> str:
    """A document id from source path and content: the same file re-ingested keeps its id."""
    digest = hashlib.sha256(f"groundkit:document\0{source}\0{text_hash}".encode()).hexdigest()
    return "doc_" + digest[:32]


def chunk_id_for(document_id: str, chunk_index: int, start: int, end: int) -> str:
    """A chunk id from its document and position."""
    key = f"groundkit:chunk\0{document_id}\0{chunk_index}\0{start}\0{end}"
    return "chk_" + hashlib.sha256(key.encode()).hexdigest()[:32]


def _extractor_fits(source_class: str, extractor: str | None) -> bool:
    """``extracted`` needs an extractor identity, ``text`` has none, a ``snapshot`` (a fetched
    page: the stored name, adr/0051) either."""
    if source_class == "extracted":
        return bool(extractor)
    return source_class == "snapshot" or extractor is None


def _identity(text: str | None) -> Any:
    """A stored extractor identity as JSON data (the text itself if it is not JSON)."""
    if text is None:
        return None
    try:
        return json.loads(text)
    except ValueError:
        return text


def frozen_mapping(mapping: Mapping[str, Any] | None) -> Mapping[str, Any]:
    return MappingProxyType(dict(mapping or {}))


def _check_span(
    owner: str, start: int, end: int, text: str, start_line: int, end_line: int
) -> None:
    if not (isinstance(start, int) and isinstance(end, int) and 0 <= start <= end):
        raise ValueError(f"{owner}: need 0 <= start_offset <= end_offset, got {start!r}..{end!r}")
    if len(text) != end - start:
        raise ValueError(
            f"{owner}: text has {len(text)} code points but the span {start}..{end} has "
            f"{end - start}"
        )
    if not 1 <= start_line <= end_line:
        raise ValueError(
            f"{owner}: need 1 <= start_line <= end_line, got {start_line!r}..{end_line!r}"
        )


@dataclass(frozen=True, slots=True)
class Citation:
    """Where a passage came from, precise enough for ``verify_citation`` to re-read and compare."""

    source: str
    """The cited file, relative to its root with ``/`` separators (``guide/pumps.md``)."""
    source_class: SourceClass
    """``text``: offsets into the file as read; ``extracted``: into its extracted text;
    ``snapshot``: into a fetched page's archived copy."""
    start_offset: int
    """Code-point offset where the cited text begins in the source's text."""
    end_offset: int
    """Code-point offset where it ends (exclusive)."""
    text: str
    """The cited text itself: ``source_text[start_offset:end_offset]``."""
    start_line: int
    """1-based line where the cited text begins."""
    end_line: int
    """1-based line where it ends (inclusive)."""
    extractor: str | None = None
    """The extractor identity (canonical JSON) the cited text came from; None for ``text``."""
    start_page: int | None = None
    """1-based first page of the cited text (PDF), else None."""
    end_page: int | None = None
    """1-based first and last page of the cited text (PDF), else None."""

    def __post_init__(self) -> None:
        if not self.source:
            raise ValueError("Citation: source must be a non-empty path")
        if not _extractor_fits(self.source_class, self.extractor):
            raise ValueError(
                "Citation: an extracted source needs its extractor identity, a text source has none"
            )
        if not (
            (self.start_page is None) == (self.end_page is None)
            and (self.start_page is None or 1 <= self.start_page <= (self.end_page or 0))
        ):
            raise ValueError(
                f"Citation: need 1 <= start_page <= end_page or neither, got "
                f"{self.start_page!r}..{self.end_page!r}"
            )
        if self.source_class not in SOURCE_CLASSES:
            raise ValueError(
                f"Citation: source_class must be one of {sorted(SOURCE_CLASSES)}, "
                f"got {self.source_class!r}"
            )
        _check_span(
            "Citation",
            self.start_offset,
            self.end_offset,
            self.text,
            self.start_line,
            self.end_line,
        )


@dataclass(frozen=True, slots=True)
class Document:
    """One ingested source file. ``source`` is relative to ``root``, with ``/`` separators."""

    document_id: str
    """Content-derived id: the source path and the hash of its text."""
    source: str
    """The path relative to ``root``, with ``/`` separators (what citations name)."""
    root: str
    """The folder (or URL) the source was ingested from."""
    content_hash: str
    """Hash of the text read, to tell a changed file from an unchanged one."""
    char_count: int
    """Length of the text in code points."""
    line_count: int
    """Number of lines of the text."""
    fingerprint: str
    """What must be unchanged for the file to be skipped: its hash, the chunking, the identities."""
    source_class: SourceClass = "text"
    """``text`` (read as is), ``extracted`` (HTML, PDF) or ``snapshot`` (a fetched URL)."""
    extractor: str | None = None
    """Identity (canonical JSON) of the extractor an ``extracted`` document was read with."""

    def __post_init__(self) -> None:
        if not self.document_id:
            raise ValueError("Document: document_id must be non-empty")
        if not (bool(self.source) and not self.source.startswith("/") and "\\" not in self.source):
            raise ValueError(f"Document: source must be a relative POSIX path, got {self.source!r}")
        if self.source_class not in IMPLEMENTED_SOURCE_CLASSES:
            raise ValueError(
                f"Document: source_class {self.source_class!r} is reserved and not supported yet"
            )
        if not _extractor_fits(self.source_class, self.extractor):
            raise ValueError(
                "Document: an extracted document needs its extractor identity, a text one has none"
            )
        if not (self.char_count >= 0 and self.line_count >= 0):
            raise ValueError("Document: char_count and line_count must be >= 0")


@dataclass(frozen=True, slots=True)
class Chunk:
    """A passage of a document: ``text == source_text[start_offset:end_offset]``."""

    chunk_id: str
    """Content-derived id of the passage (stable across re-ingests of the same text)."""
    document_id: str
    """The ``Document.document_id`` it was cut from."""
    chunk_index: int
    """Its position in the document, from 0."""
    text: str
    """The passage: exactly ``source_text[start_offset:end_offset]``."""
    start_offset: int
    """Code-point offset in the source text where the passage begins."""
    end_offset: int
    """Code-point offset where it ends (exclusive)."""
    start_line: int
    """1-based line of the source where it begins."""
    end_line: int
    """1-based line where it ends (inclusive)."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """What the chunker recorded (``heading_path``, ``pages``, ``language``), read-only."""

    def __post_init__(self) -> None:
        if self.chunk_index < 0:
            raise ValueError(f"Chunk: chunk_index must be >= 0, got {self.chunk_index}")
        _check_span(
            "Chunk", self.start_offset, self.end_offset, self.text, self.start_line, self.end_line
        )
        object.__setattr__(self, "metadata", frozen_mapping(self.metadata))


@dataclass(frozen=True, slots=True)
class SearchResult:
    """One ranked passage with its citation."""

    content: str
    """The passage found; always equal to ``citation.text``."""
    score: float
    """Its score in the mode searched (BM25, cosine similarity or fused); higher is better."""
    document_id: str
    """The id of the document it belongs to."""
    chunk_id: str
    """The id of the passage (``verify_collection(chunk_id=...)`` re-checks it)."""
    citation: Citation
    """Where the passage is in its source, precise enough to re-read and compare."""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    """The passage's metadata (``heading_path``, ``pages``) and, over several roots, ``root``."""
    highlights: tuple[tuple[int, int], ...] = ()
    """Where the query's words are: sorted, disjoint ``(start, end)`` code-point spans of
    ``content`` (the cited text), found by the collection's analyzer."""

    def __post_init__(self) -> None:
        if not math.isfinite(self.score):
            raise ValueError(f"SearchResult: score must be finite, got {self.score}")
        if self.content != self.citation.text:
            raise ValueError("SearchResult: content must equal the cited text")
        object.__setattr__(self, "metadata", frozen_mapping(self.metadata))
        spans = tuple((s, e) for s, e in self.highlights)
        previous = 0
        for start, end in spans:
            if not (
                type(start) is int
                and type(end) is int
                and previous <= start < end <= len(self.content)
            ):  # the message is built only here: results are made by the thousand
                raise ValueError(
                    f"SearchResult: highlights must be sorted, disjoint spans inside the "
                    f"content (0..{len(self.content)}), got {list(spans)}"
                )
            previous = end
        object.__setattr__(self, "highlights", spans)

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled as its fields, its metadata as a dict (a read-only view does not pickle):
        a result crosses processes as it is (``groundkit_ray``'s shards, adr/0063)."""
        fields = (self.content, self.score, self.document_id, self.chunk_id, self.citation)
        return (SearchResult, (*fields, dict(self.metadata), self.highlights))

    @classmethod
    def of_record(
        cls,
        citation: Citation,
        score: float,
        document_id: str,
        chunk_id: str,
        metadata: dict[str, Any],
    ) -> SearchResult:
        """A result whose content is its citation's text, with no highlights: the checks of
        ``__post_init__`` that hold by construction are skipped (a search makes thousands;
        adr/0031). ``metadata`` must be a new dict: it is frozen, not copied."""
        if not math.isfinite(score):
            raise ValueError(f"SearchResult: score must be finite, got {score}")
        result = object.__new__(cls)
        _SET_CONTENT(result, citation.text)  # the slots' own setters: no name lookup
        _SET_SCORE(result, score)
        _SET_DOCUMENT_ID(result, document_id)
        _SET_CHUNK_ID(result, chunk_id)
        _SET_CITATION(result, citation)
        _SET_METADATA(result, MappingProxyType(metadata))
        _SET_HIGHLIGHTS(result, ())
        return result

    @property
    def source(self) -> str:
        return self.citation.source

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape the CLI prints (stable keys; see README)."""
        c = self.citation
        return {
            "content": self.content,
            "score": self.score,
            "document_id": self.document_id,
            "chunk_id": self.chunk_id,
            "source": c.source,
            "source_class": c.source_class,
            "start_offset": c.start_offset,
            "end_offset": c.end_offset,
            "start_line": c.start_line,
            "end_line": c.end_line,
            "start_page": c.start_page,
            "end_page": c.end_page,
            "extractor": _identity(c.extractor),
            "metadata": dict(self.metadata),
            "highlights": [[start, end] for start, end in self.highlights],
        }


(
    _SET_CONTENT,
    _SET_SCORE,
    _SET_DOCUMENT_ID,
    _SET_CHUNK_ID,
    _SET_CITATION,
    _SET_METADATA,
    _SET_HIGHLIGHTS,
) = (
    getattr(SearchResult, name).__set__
    for name in (
        "content",
        "score",
        "document_id",
        "chunk_id",
        "citation",
        "metadata",
        "highlights",
    )
)
"""Setters of ``SearchResult``'s slots, for ``of_record`` (a frozen dataclass refuses
``setattr``; a slot's own setter skips the attribute lookup of ``object.__setattr__``)."""
