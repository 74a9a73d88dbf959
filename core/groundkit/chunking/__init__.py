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

``Span.heading_path`` is the Markdown heading (or reST section title) texts from the top level
down (``()`` for plain text and before the first heading), each cut to ``blocks.HEADING_CHARS``
code points. reStructuredText (``rst``, see ``rst``) is cut like Markdown: section titles,
directives whole with their bodies (a ``code-block`` is ``"code"``), literal blocks, list items.
"""

from __future__ import annotations

from typing import Literal

from groundkit.chunking.blocks import markdown_blocks, text_blocks
from groundkit.chunking.pack import pack
from groundkit.chunking.rst import looks_like_rst, rst_blocks
from groundkit.chunking.scan import last_non_ws_end, skip_ws
from groundkit.chunking.span import KINDS, Span
from groundkit.config import ChunkerSettings
from groundkit.errors import ConfigurationError

__all__ = ["DOCUMENT_KINDS", "KINDS", "Span", "chunk_text", "kind_for", "kind_for_path"]

DOCUMENT_KINDS: tuple[str, ...] = ("markdown", "rst", "text")
"""What ``kind_for`` returns and ``chunk_text`` accepts."""

_MARKDOWN_SUFFIXES = (".md", ".markdown")
_RST_SUFFIXES = (".rst", ".rest")


def kind_for_path(source: str) -> Literal["markdown", "rst", "text"]:
    """By extension, any case: ``.md``/``.markdown`` Markdown, ``.rst``/``.rest`` reST, or text."""
    lowered = source.lower()
    if lowered.endswith(_MARKDOWN_SUFFIXES):
        return "markdown"
    return "rst" if lowered.endswith(_RST_SUFFIXES) else "text"


def kind_for(source: str, text: str) -> Literal["markdown", "rst", "text"]:
    """``kind_for_path``, except that a ``.txt`` file with reST titles or directives is ``rst``."""
    kind = kind_for_path(source)
    if kind == "text" and source.lower().endswith(".txt") and looks_like_rst(text):
        return "rst"
    return kind


def chunk_text(text: str, *, kind: str, settings: ChunkerSettings) -> list[Span]:
    """The chunks of ``text`` read as ``kind`` (one of ``DOCUMENT_KINDS``); [] if blank."""
    if kind not in DOCUMENT_KINDS:
        raise ConfigurationError(
            f"document kind must be one of {', '.join(DOCUMENT_KINDS)}, got {kind!r}",
            subject=kind,
        )
    if not text or text.isspace():
        return []
    if kind == "markdown":
        return pack(text, markdown_blocks(text), markdown=True, settings=settings)
    if kind == "rst":
        return pack(text, rst_blocks(text), markdown=True, settings=settings)
    if len(text) <= settings.target_chars:  # all its paragraphs fit in one chunk
        start = skip_ws(text, 0, len(text))
        return [Span(start, last_non_ws_end(text, start, len(text)), (), "text")]
    return pack(text, text_blocks(text), markdown=False, settings=settings)
