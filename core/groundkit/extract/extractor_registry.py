"""Extractors found by name and by file extension; the one extension point for formats.

The core registers ``html`` and ``pdf``; plugins record theirs (adr/0053, adr/0058). The
extensions the core reads itself (plain text, Markdown, reST, HTML, PDF) stay the core's, so
ingesting them loads no plugin; another extension loads the plugins before it is matched. A
factory that fails (any exception) refuses that one file by name; the ingest goes on.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from groundkit.errors import IngestionError
from groundkit.extract.extractor import Extractor, ExtractorIdentity
from groundkit.plugin_registry import Registry
from groundkit.plugins import ExtractorEntry, extension_list, failure_note

__all__ = [
    "EXTRACTORS",
    "ExtractorFactory",
    "extracted_extensions",
    "extractor_for_identity",
    "extractor_for_source",
    "extractor_names",
    "register_extractor",
]

ExtractorFactory = Callable[[], Extractor]

_TEXT = (".txt", ".text", ".md", ".markdown", ".rst", ".rest")
"""Read as text by the core: no plugin is asked for them."""


def _html() -> Extractor:
    from groundkit.extract.html import HtmlExtractor

    return HtmlExtractor()


def _pdf() -> Extractor:
    from groundkit.extract.pdf import PdfExtractor

    return PdfExtractor()


EXTRACTORS: Registry[ExtractorEntry] = Registry(
    "extractor",
    {
        "html": ExtractorEntry(_html, (".html", ".htm")),
        "pdf": ExtractorEntry(_pdf, (".pdf",)),
    },
)


def register_extractor(name: str, factory: ExtractorFactory, extensions: Iterable[str]) -> None:
    """Make ``factory`` the extractor called ``name``, used for files ending in ``extensions``.

    ``factory`` builds the extractor on first use (so a missing library is refused then, not
    at import); it should raise ``IngestionError`` with reason ``extractor_missing`` naming
    what to install. Registering a known name replaces it; a bad name or extension is a
    ``ConfigurationError``.
    """
    EXTRACTORS.add(name, ExtractorEntry(factory, extension_list(extensions)))


def extractor_names() -> tuple[str, ...]:
    return tuple(sorted(EXTRACTORS.names()))


def _by_extension(*, load: bool) -> dict[str, str]:
    """extension -> extractor name; the first name (in-process ones first) keeps each."""
    found: dict[str, str] = {}
    for name in EXTRACTORS.names(load=load):
        for extension in EXTRACTORS.get(name).extensions:
            found.setdefault(extension, name)
    return found


def extracted_extensions() -> tuple[str, ...]:
    """The file extensions read through an extractor, sorted."""
    return tuple(sorted(_by_extension(load=True)))


def _match(lowered: str, table: dict[str, str]) -> str | None:
    for extension in sorted(table, key=lambda e: (-len(e), e)):
        if lowered.endswith(extension):
            return table[extension]
    return None


def extractor_for_source(source: str) -> Extractor | None:
    """The extractor for ``source`` by its extension, or None for a plain-text source.

    Raises ``IngestionError`` naming ``source`` when its library is missing (reason
    ``extractor_missing``) or its factory fails (``extractor_failed``).
    """
    lowered = source.lower()
    name = _match(lowered, _by_extension(load=False))
    if name is None and not lowered.endswith(_TEXT):
        name = _match(lowered, _by_extension(load=True))
    return None if name is None else _build(name, subject=source)


def extractor_for_identity(identity: ExtractorIdentity, *, subject: str) -> Extractor:
    """An extractor with exactly ``identity``; ``IngestionError`` naming the difference if not."""
    if identity.name not in EXTRACTORS:
        raise IngestionError(
            f"{subject}: was extracted with {identity.describe()}, and no extractor called "
            f"{identity.name!r} is registered here (known: {', '.join(extractor_names())})"
            f"{failure_note()}",
            subject=subject,
            reason="extractor_missing",
        )
    extractor = _build(identity.name, subject=subject)
    if extractor.identity != identity:
        raise IngestionError(
            f"{subject}: was extracted with {identity.to_json()}, but the installed extractor is "
            f"{extractor.identity.to_json()}; its text may differ, so the citation cannot be "
            "checked: re-ingest to cite the installed extractor's text",
            subject=subject,
            reason="extractor_changed",
        )
    return extractor


def _build(name: str, *, subject: str) -> Extractor:
    try:
        return EXTRACTORS.get(name).factory()
    except IngestionError as exc:
        raise IngestionError(
            f"{subject}: {exc.message}", subject=subject, reason=exc.reason
        ) from None
    except Exception as exc:  # a plugin's factory refuses its file, not the ingest
        raise IngestionError(
            f"{subject}: extractor {name!r} failed ({type(exc).__name__}: {exc}); the file is "
            "refused and the ingest goes on",
            subject=subject,
            reason="extractor_failed",
        ) from None
