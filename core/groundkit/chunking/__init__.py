"""Structure-aware chunking with exact code-point offsets.

``chunk_text`` cuts a document into trimmed spans, ``text[span.start:span.end]`` being the
chunk, in increasing order, together covering every non-whitespace character (a byte-order
mark opening a Markdown text counts as whitespace). Lines end at ``\n``, ``\r\n`` or a lone
``\r``, as in ``groundkit.lines``. Markdown is cut
by structure (headings, paragraphs, list items, fenced code; see ``blocks``), plain text by
blank-line paragraphs. Consecutive blocks of one section are packed greedily up to
``target_chars``; a heading always starts a chunk and is included in it. A unit longer than
the target is split at sentence ends, else whitespace, else hard, with pieces overlapping by
about ``overlap_chars`` (see ``split``). No chunk is longer than ``target_chars``.

``Span.kind`` is one of:

- ``"section"``: Markdown prose, or any mix of blocks (a chunk holding a heading is one);
- ``"list"``: Markdown made only of list items;
- ``"code"``: (part of) a single fenced code block;
- ``"text"``: anything from a plain-text document.

``Span.heading_path`` is the Markdown heading texts from the top level down (``()`` for plain
text and before the first heading), each cut to ``blocks.HEADING_CHARS`` code points.
"""

from __future__ import annotations

from groundkit.chunking.blocks import markdown_blocks, text_blocks
from groundkit.chunking.pack import pack
from groundkit.chunking.span import KINDS, Span
from groundkit.config import ChunkerSettings
from groundkit.errors import ConfigurationError

__all__ = ["DOCUMENT_KINDS", "KINDS", "Span", "chunk_text", "kind_for_path"]

DOCUMENT_KINDS: tuple[str, ...] = ("markdown", "text")
"""What ``kind_for_path`` returns and ``chunk_text`` accepts."""

_MARKDOWN_SUFFIXES = (".md", ".markdown")


def kind_for_path(source: str) -> str:
    """``"markdown"`` for ``.md`` and ``.markdown`` (any case), ``"text"`` for anything else."""
    return "markdown" if source.lower().endswith(_MARKDOWN_SUFFIXES) else "text"


def chunk_text(text: str, *, kind: str, settings: ChunkerSettings) -> list[Span]:
    """The chunks of ``text`` read as ``kind`` (``"markdown"`` or ``"text"``); [] if blank."""
    if kind not in DOCUMENT_KINDS:
        raise ConfigurationError(
            f"document kind must be one of {', '.join(DOCUMENT_KINDS)}, got {kind!r}",
            subject=kind,
        )
    if not text or text.isspace():
        return []
    markdown = kind == "markdown"
    blocks = markdown_blocks(text) if markdown else text_blocks(text)
    return pack(text, blocks, markdown=markdown, settings=settings)
