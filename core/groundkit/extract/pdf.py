"""PDF to text with pypdf (pure Python, so it runs in Pyodide too), page by page.

pypdf is the ``pdf`` extra, imported when the first PDF is read; without it a PDF is refused
with the command that installs it. Pages are joined with a blank line and their start offsets
kept, so every citation knows its first and last page.
"""

from __future__ import annotations

import io
from typing import Any

from groundkit.errors import IngestionError
from groundkit.extract.extractor import Extraction, ExtractorIdentity
from groundkit.plugins import install_hint

__all__ = ["INSTALL", "REVISION", "PdfExtractor"]

REVISION = "1"
"""groundkit's own part of the version: bumped when the text it builds from pypdf's changes."""
INSTALL = install_hint("pdf")
_PAGE_SEPARATOR = "\n\n"


def _pypdf() -> Any:
    try:
        import pypdf
    except ImportError:
        raise IngestionError(
            f"PDF files need the pdf extra (pypdf), which is not installed: {INSTALL}",
            subject="pypdf",
            reason="extractor_missing",
        ) from None
    return pypdf


class PdfExtractor:
    """Text of each page by pypdf's plain extraction; identity pins the pypdf version."""

    def __init__(self) -> None:
        self._pypdf = _pypdf()

    @property
    def identity(self) -> ExtractorIdentity:
        return ExtractorIdentity(
            name="pdf",
            version=f"{REVISION}+pypdf-{self._pypdf.__version__}",
            mode="plain",
            settings={"library": "pypdf", "page_separator": _PAGE_SEPARATOR},
        )

    def extract(self, data: bytes, *, name: str) -> Extraction:
        pypdf = self._pypdf
        try:
            reader = pypdf.PdfReader(io.BytesIO(data))
            if reader.is_encrypted:
                raise IngestionError(
                    f"{name}: is an encrypted PDF; decrypt it (e.g. qpdf --decrypt) to ingest it",
                    subject=name,
                    reason="encrypted",
                )
            pages = [_page_text(page) for page in reader.pages]
        except IngestionError:
            raise
        except Exception as exc:  # pypdf raises many types on malformed files
            raise IngestionError(
                f"{name}: is not a readable PDF ({type(exc).__name__}: {str(exc)[:200]})",
                subject=name,
                reason="unreadable_pdf",
            ) from None
        starts: list[int] = []
        parts: list[str] = []
        offset = 0
        for text in pages:
            starts.append(offset)
            parts.append(text)
            offset += len(text) + len(_PAGE_SEPARATOR)
        return Extraction(_PAGE_SEPARATOR.join(parts), "text", tuple(starts))


def _page_text(page: Any) -> str:
    """A page's text with line ends normalised, trailing spaces and NULs dropped."""
    raw = str(page.extract_text(extraction_mode="plain") or "")
    lines = raw.replace("\r\n", "\n").replace("\r", "\n").replace("\0", "").split("\n")
    return "\n".join(line.rstrip() for line in lines).strip("\n")
