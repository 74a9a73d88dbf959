"""Packing blocks into chunks: greedy up to the target size, never across a heading.

A heading is glued to the block after it (when that block is in its section), so a section's
first chunk always starts with its heading line. A unit longer than the target is split (see
``split``); everything else lands whole in exactly one chunk.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import NamedTuple

from groundkit.chunking.blocks import Block
from groundkit.chunking.span import Span
from groundkit.chunking.split import split_span
from groundkit.config import ChunkerSettings

__all__ = ["pack"]

_MARKDOWN_KIND = {"code": "code", "list": "list", "paragraph": "section", "heading": "section"}
_PACKABLE_ALIKE = frozenset({"list", "text"})  # kinds a chunk of several units keeps


class _Unit(NamedTuple):
    """What is packed: one block, or a heading with the block after it."""

    start: int
    end: int
    kind: str
    heading_path: tuple[str, ...]
    opens_section: bool
    inner_start: int  # split pieces starting here or later take ``inner_kind``
    inner_kind: str


def pack(
    text: str, blocks: Iterable[Block], *, markdown: bool, settings: ChunkerSettings
) -> list[Span]:
    """Spans of at most ``settings.target_chars`` covering every block, in order."""
    target = settings.target_chars
    spans: list[Span] = []
    # The chunk being filled: from the start of its first unit to the end of its last.
    start = end = -1
    path: tuple[str, ...] = ()
    kind = ""
    for unit in _units(blocks, markdown=markdown):
        size = unit.end - unit.start
        if start >= 0 and (unit.opens_section or unit.end - start > target or size > target):
            spans.append(Span(start, end, path, kind))
            start = -1
        if size > target:
            for piece_start, piece_end in split_span(
                text, unit.start, unit.end, target=target, overlap=settings.overlap_chars
            ):
                piece_kind = unit.inner_kind if piece_start >= unit.inner_start else unit.kind
                spans.append(Span(piece_start, piece_end, unit.heading_path, piece_kind))
        elif start < 0:
            start, end, path, kind = unit.start, unit.end, unit.heading_path, unit.kind
        else:
            end = unit.end
            if kind != unit.kind or kind not in _PACKABLE_ALIKE:
                kind = "section"
    if start >= 0:
        spans.append(Span(start, end, path, kind))
    return spans


def _units(blocks: Iterable[Block], *, markdown: bool) -> Iterator[_Unit]:
    """Blocks as packing units, each heading joined to the non-heading block after it."""
    heading: Block | None = None
    for block in blocks:
        kind = _MARKDOWN_KIND[block.role] if markdown else "text"
        if heading is not None:
            if block.role != "heading":
                yield _Unit(heading.start, block.end, "section", block.heading_path, True,
                            block.start, kind)  # fmt: skip
                heading = None
                continue
            yield _Unit(heading.start, heading.end, "section", heading.heading_path, True,
                        heading.end, "section")  # fmt: skip
            heading = None
        if block.role == "heading":
            heading = block
        else:
            yield _Unit(block.start, block.end, kind, block.heading_path, False, block.start, kind)
    if heading is not None:
        yield _Unit(heading.start, heading.end, "section", heading.heading_path, True,
                    heading.end, "section")  # fmt: skip
