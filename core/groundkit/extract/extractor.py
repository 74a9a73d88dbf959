"""The extractor protocol and its identity."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol, TypeAlias, runtime_checkable

from groundkit import codec

__all__ = ["Extraction", "Extractor", "ExtractorIdentity", "Structure"]

Structure: TypeAlias = Literal["markdown", "rst", "text"]


@dataclass(frozen=True, slots=True)
class ExtractorIdentity:
    """What must match for re-extraction to give the text a citation was cut from.

    ``version`` changes whenever the output may change (the extractor's own revision and that
    of any library it uses); ``mode`` and ``settings`` are the options it ran with.
    """

    name: str
    """The extractor's name (``html``, ``pdf``)."""
    version: str
    """Changes whenever its output may change (its revision and its library's)."""
    mode: str
    """The mode it ran in (``main-text``, ``plain``)."""
    settings: Mapping[str, Any] = field(default_factory=dict)
    """The other options it ran with, read-only."""

    def __post_init__(self) -> None:
        if not (self.name and self.version and self.mode):
            raise ValueError("ExtractorIdentity: name, version and mode must be non-empty")
        object.__setattr__(self, "settings", MappingProxyType(dict(self.settings)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "mode": self.mode,
            "settings": dict(self.settings),
        }

    def to_json(self) -> str:
        """Canonical JSON (sorted keys): equal identities give equal strings."""
        return codec.encode(self.to_dict())

    @classmethod
    def from_json(cls, text: str) -> ExtractorIdentity:
        raw = codec.decode(text)
        if not isinstance(raw, dict) or not isinstance(raw.get("settings", {}), dict):
            raise ValueError(f"not an extractor identity: {text[:200]!r}")
        return cls(
            name=str(raw.get("name", "")),
            version=str(raw.get("version", "")),
            mode=str(raw.get("mode", "")),
            settings=raw.get("settings", {}),
        )

    def describe(self) -> str:
        """``name version (mode)`` for messages."""
        return f"{self.name} {self.version} ({self.mode})"


@dataclass(frozen=True, slots=True)
class Extraction:
    """An extractor's output: the text citations index, and how to read it.

    ``structure`` tells the chunker how to cut ``text`` (``"markdown"`` or ``"rst"``: headings
    and blocks; ``"text"``: paragraphs). ``page_starts`` holds the offset where each page
    begins (PDF), empty for formats without pages. ``language`` is the tag the source declares
    (HTML's ``<html lang>``), None when it declares none.
    """

    text: str
    """The extracted text; citations' offsets index it."""
    structure: Structure = "text"
    """How the chunker cuts ``text``: ``markdown``, ``rst`` or ``text`` (paragraphs)."""
    page_starts: tuple[int, ...] = ()
    """The offset where each page begins (PDF); empty without pages."""
    language: str | None = None
    """The language tag the source declares (HTML's ``<html lang>``), else None."""

    def pages_of(self, start: int, end: int) -> tuple[int, int] | None:
        """1-based first and last page of ``text[start:end]``, or None without pages."""
        if not self.page_starts:
            return None
        first = bisect_right(self.page_starts, start)
        last = bisect_right(self.page_starts, end - 1) if end > start else first
        return max(first, 1), max(last, 1)


@runtime_checkable
class Extractor(Protocol):
    """Turns a file's bytes into text, deterministically: same bytes and identity, same text."""

    @property
    def identity(self) -> ExtractorIdentity: ...

    def extract(self, data: bytes, *, name: str) -> Extraction:
        """The text of ``data``; ``IngestionError`` naming ``name`` when it cannot be read."""
        ...
