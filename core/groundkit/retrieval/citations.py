"""Re-reading a citation's source and comparing it with the cited text.

Outcomes: ``verified`` (the span still holds the cited text), ``drifted`` (the file is readable
but the span now holds something else), ``unresolvable`` (missing, unreadable, not UTF-8,
outside the base directory, or extracted by an extractor this installation does not have in
the same identity). Reasons name the file and offsets, never the document text.
"""

from __future__ import annotations

import hashlib
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from groundkit.config import DEFAULT_MAX_FILE_BYTES
from groundkit.contracts import Chunk, Citation, Document
from groundkit.errors import IngestionError, RetrievalError
from groundkit.source_files import decode_text, read_bytes

__all__ = [
    "SourceTexts",
    "Verdict",
    "Verification",
    "citation_for",
    "citation_root",
    "resolve_citation",
    "source_text",
    "verify_citation",
    "verify_document_citation",
    "verify_max_bytes",
]

Verdict = Literal["verified", "drifted", "unresolvable"]
_EXTRACTED_CACHE: dict[tuple[str, str], str] = {}
_EXTRACTED_CACHE_SIZE = 8  # re-checking many citations of one PDF extracts it once
_EXTRACTED_LOCK = threading.Lock()  # the service verifies from several threads


@dataclass(frozen=True, slots=True)
class Verification:
    """The outcome of re-checking one citation."""

    verdict: Verdict
    """``verified``, ``drifted`` (the source says something else there now) or ``unresolvable`` (the
    source cannot be read)."""
    citation: Citation
    """The citation checked."""
    reason: str
    """Why, in words, naming the source and offsets."""

    @property
    def ok(self) -> bool:
        return self.verdict == "verified"


def citation_for(chunk: Chunk, document: Document) -> Citation:
    """The citation of a stored chunk of ``document``."""
    pages = chunk.metadata.get("pages")
    return Citation(
        source=document.source,
        source_class=document.source_class,
        start_offset=chunk.start_offset,
        end_offset=chunk.end_offset,
        text=chunk.text,
        start_line=chunk.start_line,
        end_line=chunk.end_line,
        extractor=document.extractor,
        start_page=None if not pages else int(pages[0]),
        end_page=None if not pages else int(pages[1]),
    )


def verify_max_bytes(document: Document) -> int:
    """The size cap to re-read ``document`` under: the default, or more for a file ingested
    under a raised ``max_file_bytes`` (UTF-8 spends at most 4 bytes per stored code point)."""
    return max(DEFAULT_MAX_FILE_BYTES, 4 * document.char_count)


def citation_root(document: Document, location: str) -> str:
    """Where a document's citations are re-read: its root (a relative one, as a static site
    records, under ``location``), or, for a fetched URL, the page archive folder beside the
    collection file at ``location`` (never the network)."""
    if document.source_class == "snapshot":
        from groundkit.collection import page_archive_dir

        return str(page_archive_dir(location))
    if not Path(document.root).is_absolute():  # a static site's ``sources/``: under the site
        return str(Path(location) / document.root)
    return document.root


def verify_document_citation(citation: Citation, document: Document, location: str) -> Verification:
    """Re-read a citation of ``document`` where its source lives (``citation_root``) under the
    size cap it was ingested with (``verify_max_bytes``): how every caller verifies a stored
    result, so a fetched URL or a file over the default cap verifies everywhere alike."""
    return verify_citation(
        citation, citation_root(document, location), max_bytes=verify_max_bytes(document)
    )


def source_text(
    root: str | Path,
    source: str,
    *,
    extractor: str | None = None,
    max_bytes: int = DEFAULT_MAX_FILE_BYTES,
) -> str:
    """The text offsets of ``source`` index: the file itself, or its extraction by ``extractor``.

    ``extractor`` is a recorded identity (canonical JSON); the installed extractor must have
    exactly that identity. Raises ``IngestionError`` (reasons as at ingest, plus
    ``extractor_missing`` and ``extractor_changed``).
    """
    data = read_bytes(Path(root), source, max_bytes=max_bytes)
    if extractor is None:
        return decode_text(data, name=source)
    from groundkit.extract import ExtractorIdentity, extractor_for_identity

    try:
        identity = ExtractorIdentity.from_json(extractor)
    except ValueError:
        raise IngestionError(
            f"{source}: its recorded extractor identity {extractor[:200]!r} is not readable",
            subject=source,
            reason="extractor_missing",
        ) from None
    found = extractor_for_identity(identity, subject=source)
    key = (hashlib.sha256(data).hexdigest(), extractor)
    with _EXTRACTED_LOCK:
        text = _EXTRACTED_CACHE.get(key)
    if text is None:
        text = found.extract(data, name=source).text
        with _EXTRACTED_LOCK:
            if len(_EXTRACTED_CACHE) >= _EXTRACTED_CACHE_SIZE:
                _EXTRACTED_CACHE.pop(next(iter(_EXTRACTED_CACHE)))
            _EXTRACTED_CACHE[key] = text
    return text


def resolve_citation(
    citation: Citation, root: str | Path, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> str:
    """The text the citation's span holds in the source now.

    Raises ``RetrievalError`` with verdict ``unresolvable`` when the source cannot be read
    under the ingest rules (or re-extracted with the same extractor identity), or when the
    span no longer fits inside it (verdict ``drifted``).
    """
    return _span(citation, _whole_source(citation, root, max_bytes))


def _whole_source(citation: Citation, root: str | Path, max_bytes: int) -> str:
    """The whole text ``citation`` indexes now (``RetrievalError`` ``unresolvable`` if none)."""
    if citation.source_class not in ("text", "extracted", "snapshot"):
        raise RetrievalError(
            f"{citation.source}: source class {citation.source_class!r} cannot be resolved by "
            "this version",
            subject=citation.source,
            verdict="unresolvable",
        )
    try:
        return source_text(root, citation.source, extractor=citation.extractor, max_bytes=max_bytes)
    except IngestionError as exc:
        raise RetrievalError(
            f"citation of {citation.source} is unresolvable: {exc.message}",
            subject=citation.source,
            verdict="unresolvable",
        ) from exc


def _span(citation: Citation, text: str) -> str:
    """``citation``'s span of the source ``text`` (``RetrievalError`` ``drifted`` past its end)."""
    if citation.end_offset > len(text):
        raise RetrievalError(
            f"{citation.source}: span {citation.start_offset}..{citation.end_offset} lies past "
            f"the end of the source ({len(text)} code points); the file changed since ingest",
            subject=citation.source,
            verdict="drifted",
        )
    return text[citation.start_offset : citation.end_offset]


def verify_citation(
    citation: Citation, root: str | Path, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES
) -> Verification:
    """Re-read the source (re-extract it, for ``extracted``) and compare the span."""
    return SourceTexts().verify(citation, root, max_bytes=max_bytes)


class SourceTexts:
    """Verifies many citations, reading each source once while its citations come in a row
    (a collection's chunks come document by document): a verify run is linear in the bytes
    of its sources, not in chunks times bytes. Holds one source's text at a time."""

    __slots__ = ("_key", "_text")

    def __init__(self) -> None:
        self._key: tuple[str, str, str, str | None, int] | None = None
        self._text: str | RetrievalError = ""

    def verify(
        self, citation: Citation, root: str | Path, *, max_bytes: int = DEFAULT_MAX_FILE_BYTES
    ) -> Verification:
        """As ``verify_citation``, re-using the text read for the previous citation when it
        cites the same source under the same root, extractor and size cap."""
        key = (str(root), citation.source, citation.source_class, citation.extractor, max_bytes)
        if key != self._key:
            self._key = None  # a failed read below leaves nothing half-remembered
            try:
                self._text = _whole_source(citation, root, max_bytes)
            except RetrievalError as exc:
                self._text = exc
            self._key = key
        where = f"{citation.source} [{citation.start_offset}:{citation.end_offset}]"
        try:
            if isinstance(self._text, RetrievalError):
                return Verification("unresolvable", citation, self._text.message)
            current = _span(citation, self._text)
        except RetrievalError as exc:
            return Verification("drifted", citation, exc.message)
        if current != citation.text:
            return Verification(
                "drifted", citation, f"{where}: the source holds different text there now"
            )
        return Verification("verified", citation, f"{where}: matches the source")
