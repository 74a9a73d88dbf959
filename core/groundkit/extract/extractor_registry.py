"""Extractors found by name and by file extension; the one extension point for formats.

The core registers ``html`` and ``pdf``; plugins add theirs through ``groundkit.extend.
PluginRegistry``, loaded before the first source is matched (adr/0053).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from groundkit.errors import IngestionError
from groundkit.extract.extractor import Extractor, ExtractorIdentity
from groundkit.plugins import load_plugins

__all__ = [
    "ExtractorFactory",
    "extractor_for_identity",
    "extractor_for_source",
    "extractor_names",
    "register_extractor",
]

ExtractorFactory = Callable[[], Extractor]


def _html() -> Extractor:
    from groundkit.extract.html import HtmlExtractor

    return HtmlExtractor()


def _pdf() -> Extractor:
    from groundkit.extract.pdf import PdfExtractor

    return PdfExtractor()


_FACTORIES: dict[str, ExtractorFactory] = {"html": _html, "pdf": _pdf}
_EXTENSIONS: dict[str, str] = {".html": "html", ".htm": "html", ".pdf": "pdf"}


def register_extractor(name: str, factory: ExtractorFactory, extensions: Iterable[str]) -> None:
    """Make ``factory`` the extractor called ``name``, used for files ending in ``extensions``.

    ``factory`` builds the extractor on first use (so a missing library is refused then, not
    at import); it should raise ``IngestionError`` with reason ``extractor_missing`` naming
    what to install. Registering a known name replaces it.
    """
    wanted = [e.lower() for e in extensions]
    if not name or any(not e.startswith(".") or len(e) < 2 for e in wanted):
        raise ValueError(
            f"register_extractor: need a name and extensions like '.pdf', got {name!r}"
        )
    _FACTORIES[name] = factory
    for extension in wanted:
        _EXTENSIONS[extension] = name


def extractor_names() -> tuple[str, ...]:
    return tuple(sorted(_FACTORIES))


def extracted_extensions() -> tuple[str, ...]:
    """The file extensions read through an extractor, sorted."""
    load_plugins()
    return tuple(sorted(_EXTENSIONS))


def extractor_for_source(source: str) -> Extractor | None:
    """The extractor for ``source`` by its extension, or None for a plain-text source.

    Raises ``IngestionError`` (reason ``extractor_missing``) when its library is not installed.
    """
    load_plugins()
    lowered = source.lower()
    for extension, name in sorted(_EXTENSIONS.items(), key=lambda item: -len(item[0])):
        if lowered.endswith(extension):
            return _build(name, subject=source)
    return None


def extractor_for_identity(identity: ExtractorIdentity, *, subject: str) -> Extractor:
    """An extractor with exactly ``identity``; ``IngestionError`` naming the difference if not."""
    if identity.name not in _FACTORIES:
        load_plugins()
    if identity.name not in _FACTORIES:
        raise IngestionError(
            f"{subject}: was extracted with {identity.describe()}, and no extractor called "
            f"{identity.name!r} is registered here (known: {', '.join(extractor_names())})",
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
        return _FACTORIES[name]()
    except IngestionError as exc:
        raise IngestionError(
            f"{subject}: {exc.message}", subject=subject, reason=exc.reason
        ) from None
