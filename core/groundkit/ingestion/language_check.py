"""A document's declared language checked against its collection's analysis (adr/0045).

A collection made with ``--language de`` analyzes every document with German's stemmer (with
``--language de,fr``, each with its own of those); a document declaring another language would
be indexed under the wrong stems and found by no one, so it is refused (the batch goes on) with
the command that would index it."""

from __future__ import annotations

from groundkit.analysis.analyzer import Analyzer
from groundkit.errors import IngestionError
from groundkit.extract.extractor import Extraction
from groundkit.extract.language import declared_language

__all__ = ["check_language"]


def check_language(extraction: Extraction, analyzer: Analyzer, source: str) -> None:
    """Refuse (``IngestionError``, reason ``language``) a source declaring a language that
    ``analyzer`` does not analyze; a collection without a language accepts every source."""
    declared = declared_language(extraction)
    if declared is None or analyzer.accepts(declared):
        return
    raise IngestionError(
        f"{source}: declares language {declared!r}, but this collection analyzes "
        f"{', '.join(analyzer.languages)}; ingest it into a collection of its own language "
        f"(--collection NAME --language {declared.replace('_', '-').split('-', 1)[0].lower()})",
        subject=source,
        reason="language",
    )
