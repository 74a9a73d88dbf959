"""HTML to structured text with the standard library's ``html.parser``.

Boilerplate is dropped by a fixed rule: the subtrees of ``script``, ``style``, ``nav``,
``aside``, ``form`` and the other tags in ``DROPPED``, of anything marked ``hidden`` or
``aria-hidden="true"`` or hidden by its inline style (``display: none``, ``visibility:
hidden``: text no reader sees is a prompt-injection opening, adr/0041) or with a landmark role
in ``DROPPED_ROLES`` (``navigation``, ``banner``, ...), of ``headerlink`` anchors, and of
``header``/``footer`` outside ``main``/``article``. What remains is written as Markdown-shaped
text (``#`` headings, ``-`` list items, fenced ``pre`` blocks, blank-line paragraphs) so the
Markdown chunker cuts it by its headings. The comparison with a full HTML5 parser is in
adr/0021-extractor-identity.md.
"""

from __future__ import annotations

import codecs
import re
from html.parser import HTMLParser

from groundkit.errors import IngestionError
from groundkit.extract.extractor import Extraction, ExtractorIdentity
from groundkit.extract.language import html_language

__all__ = [
    "DROPPED",
    "DROPPED_CLASSES",
    "DROPPED_ROLES",
    "VERSION",
    "HtmlExtractor",
    "html_to_text",
]

VERSION = "2"
"""Bumped whenever the text produced for some input may change."""

DROPPED: frozenset[str] = frozenset(
    {
        "aside", "button", "canvas", "dialog", "form", "head", "iframe", "map", "nav",
        "noscript", "object", "script", "select", "style", "svg", "template", "textarea",
    }
)  # fmt: skip
DROPPED_ROLES: frozenset[str] = frozenset(
    {"banner", "complementary", "contentinfo", "navigation", "search"}
)
DROPPED_CLASSES: frozenset[str] = frozenset({"headerlink"})  # Sphinx and MkDocs pilcrow anchors
_CONTENT = frozenset({"main", "article"})
_PAGE_CHROME = frozenset({"header", "footer"})
_VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
     "source", "track", "wbr"}
)  # fmt: skip
_BLOCKS = frozenset(
    {"address", "article", "blockquote", "body", "br", "caption", "dd", "details", "div", "dl",
     "dt", "fieldset", "figcaption", "figure", "footer", "header", "hr", "html", "li", "main",
     "ol", "p", "section", "summary", "table", "tbody", "tfoot", "thead", "tr", "ul"}
)  # fmt: skip
_HEADINGS = {"h1": 1, "h2": 2, "h3": 3, "h4": 4, "h5": 5, "h6": 6}
_META_CHARSET = re.compile(
    rb"""<meta[^>]{0,512}?charset\s*=\s*["']?\s*([A-Za-z0-9_.:-]{1,40})""", re.I
)
_HIDDEN_STYLE = re.compile(
    r"(?:^|;)\s*(?:display\s*:\s*none|visibility\s*:\s*(?:hidden|collapse))\s*"
    r"(?:!\s*important\s*)?(?=;|$)",
    re.I,
)
# Codecs that bytes.decode accepts but that are no character set of a web page: they would
# turn bytes into other bytes' text, or fail in ways no encoding error names.
_NOT_CHARSETS = frozenset(
    {"undefined", "punycode", "idna", "unicode_escape", "raw_unicode_escape", "utf-7",
     "escape_codec", "mbcs", "oem"}
)  # fmt: skip
_WINDOWS_1252 = frozenset({"iso-8859-1", "iso8859-1", "latin1", "latin-1", "l1", "ascii",
                           "us-ascii", "cp1252", "windows-1252"})  # fmt: skip


class HtmlExtractor:
    """The core's HTML extractor (standard library only, so it also runs in Pyodide)."""

    @property
    def identity(self) -> ExtractorIdentity:
        return ExtractorIdentity(
            name="html",
            version=VERSION,
            mode="main-text",
            settings={
                "parser": "html.parser",
                "dropped": sorted(DROPPED),
                "dropped_roles": sorted(DROPPED_ROLES),
                "dropped_classes": sorted(DROPPED_CLASSES),
            },
        )

    def extract(self, data: bytes, *, name: str) -> Extraction:
        markup = decode_html(data, name=name)
        language = html_language(markup)
        return Extraction(html_to_text(markup), structure="markdown", language=language)


def decode_html(data: bytes, *, name: str) -> str:
    """Decode by byte-order mark, else a ``<meta charset>`` in the first 2 KiB, else UTF-8.

    Latin-1 and ASCII labels decode as windows-1252, as browsers do. Undecodable bytes are
    refused, never replaced.
    """
    label = "utf-8"
    for bom, encoding in ((codecs.BOM_UTF8, "utf-8-sig"), (codecs.BOM_UTF16_LE, "utf-16"),
                          (codecs.BOM_UTF16_BE, "utf-16")):  # fmt: skip
        if data.startswith(bom):
            label = encoding
            break
    else:
        found = _META_CHARSET.search(data[:2048])
        if found is not None:
            label = found.group(1).decode("ascii").lower()
            label = "cp1252" if label in _WINDOWS_1252 else label
    require_text_encoding(label, name=name)
    try:
        return data.decode(label).replace("\0", "")
    except UnicodeDecodeError as exc:
        raise IngestionError(
            f"{name}: is not valid {label} (byte {exc.start}: {exc.reason}); declare its "
            "<meta charset> or convert it to UTF-8",
            subject=name,
            reason="not_decodable",
        ) from None


def require_text_encoding(label: str, *, name: str) -> None:
    """Refuse ``label`` unless it names a character set: ``zlib``, ``base64``, ``rot13`` and
    the like are codecs Python knows but no page is written in."""
    try:
        info = codecs.lookup(label)
    except LookupError:
        info = None
    if info is None or not getattr(info, "_is_text_encoding", True) or info.name in _NOT_CHARSETS:
        what = "unknown character set" if info is None else "codec that is no character set"
        raise IngestionError(
            f"{name}: declares the {what} {label!r}; convert it to UTF-8",
            subject=name,
            reason="not_decodable",
        )


def hidden_by_style(style: str) -> bool:
    """True when an inline ``style`` hides its element (``display: none``, ``visibility:
    hidden``, with or without ``!important``)."""
    return _HIDDEN_STYLE.search(style) is not None


def html_to_text(markup: str) -> str:
    """The main text of an HTML document as Markdown-shaped text (see the module docstring)."""
    parser = _TextParser()
    parser.feed(markup)
    parser.close()
    parser.finish()
    return "\n\n".join(parser.blocks) + ("\n" if parser.blocks else "")


class _TextParser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.blocks: list[str] = []
        self._words: list[str] = []
        self._skip: list[str] = []  # open tags of a dropped subtree
        self._skip_counts: dict[str, int] = {}  # how often each tag is in _skip (O(1) lookups)
        self._content = 0  # open main/article (or role="main") elements
        self._content_tags: list[str] = []
        self._heading = 0
        self._list_item = False
        self._pre = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._skip:
            if tag not in _VOID:
                self._enter_skip(tag)
            return
        found = dict(attrs)
        role = (found.get("role") or "").lower()
        hidden = (
            "hidden" in found
            or (found.get("aria-hidden") or "").lower() == "true"
            or hidden_by_style(found.get("style") or "")
            or role in DROPPED_ROLES
            or not DROPPED_CLASSES.isdisjoint((found.get("class") or "").split())
        )
        if tag not in _VOID and (
            tag in DROPPED or hidden or (tag in _PAGE_CHROME and not self._content)
        ):
            self._enter_skip(tag)
            return
        if tag in _CONTENT or role == "main":
            self._content += 1
            self._content_tags.append(tag)
        if tag == "pre":
            if not self._pre:
                self.flush()
            self._pre += 1
        elif self._pre:
            if tag == "br":
                self._words.append("\n")
        elif tag in _HEADINGS:
            self.flush()
            self._heading = _HEADINGS[tag]
        elif tag in _BLOCKS:
            self.flush()
            self._list_item = self._list_item or tag == "li"
        elif tag in ("td", "th"):
            self._words.append(" ")

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID:
            self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._skip:
            if self._skip_counts.get(tag):  # close it and whatever was left open inside it
                while True:
                    closed = self._skip.pop()
                    self._skip_counts[closed] -= 1
                    if closed == tag:
                        break
            return
        if self._content_tags and tag == self._content_tags[-1]:
            self._content_tags.pop()
            self._content -= 1
        if tag == "pre" and self._pre:
            self._pre -= 1
            if not self._pre:
                self._flush_code()
        elif self._pre:
            return
        elif tag in _HEADINGS or tag in _BLOCKS:
            self.flush()
            if tag in _HEADINGS or tag == "li":
                self._heading, self._list_item = 0, False

    def _enter_skip(self, tag: str) -> None:
        self._skip.append(tag)
        self._skip_counts[tag] = self._skip_counts.get(tag, 0) + 1

    def finish(self) -> None:
        """End the document: a ``pre`` left open is still kept, as code."""
        if self._pre:
            self._pre = 0
            self._flush_code()
        self.flush()

    def handle_data(self, data: str) -> None:
        if not self._skip:
            self._words.append(data)

    def flush(self) -> None:
        """End the current block: a heading, list item or paragraph with whitespace collapsed."""
        if self._pre:
            return
        text = " ".join("".join(self._words).split())
        self._words = []
        if text:
            if self._heading:
                text = "#" * self._heading + " " + text
            elif self._list_item:
                text = "- " + text
            self.blocks.append(text)
            self._heading, self._list_item = 0, False

    def _flush_code(self) -> None:
        code = "".join(self._words).strip("\n").rstrip()
        self._words = []
        if code.strip():
            fence = "```"
            while fence in code:
                fence += "`"
            self.blocks.append(f"{fence}\n{code}\n{fence}")
