"""A document's declared language checked against its collection's analysis (adr/0045).

A collection made with ``--language`` analyzes every document with that language's stemmer;
a document declaring another language would be indexed under the wrong stems and found by no
one, so it is refused (the batch goes on) with the command that would index it."""

from __future__ import annotations

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.languages import resolve_language
from groundkit.errors import IngestionError
from groundkit.extract.base import Extraction
from groundkit.extract.language import declared_language

__all__ = ["check_language"]


def check_language(extraction: Extraction, analyzer: Analyzer, source: str) -> None:
    """Refuse (``IngestionError``, reason ``language``) a source declaring a language other
    than ``analyzer``'s; a collection without a language accepts every source."""
    wanted = analyzer.language
    declared = declared_language(extraction)
    if wanted is None or declared is None or resolve_language(declared) == wanted:
        return
    raise IngestionError(
        f"{source}: declares language {declared!r}, but this collection analyzes {wanted}; "
        "ingest it into a collection of its own language (--collection NAME --language "
        f"{declared.replace('_', '-').split('-', 1)[0].lower()})",
        subject=source,
        reason="language",
    )
