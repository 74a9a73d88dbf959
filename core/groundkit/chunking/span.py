"""The chunker's output: a code-point span of the source with its heading path and kind."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "Span"]

KINDS: tuple[str, ...] = ("section", "list", "code", "text")
"""Every ``Span.kind`` the chunker produces (see the package docstring)."""


@dataclass(frozen=True, slots=True)
class Span:
    """``text[start:end]`` is the chunk; 0-based, end-exclusive, trimmed of whitespace."""

    start: int
    end: int
    heading_path: tuple[str, ...]
    kind: str
