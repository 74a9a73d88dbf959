"""Reading files into a collection: discovery, checks, chunking, analysis, transactional writes."""

from __future__ import annotations

from groundkit.ingestion.collection_ingest import ingest, sample_corpus
from groundkit.ingestion.discover import Discovery, Refusal, SourceFile, discover
from groundkit.ingestion.indexer import Indexer, IngestProgress
from groundkit.ingestion.manage import (
    RelocateReport,
    RemoveReport,
    SourceRoot,
    list_sources,
    relocate_sources,
    remove_sources,
)
from groundkit.ingestion.report import IngestReport

__all__ = [
    "Discovery",
    "Indexer",
    "IngestProgress",
    "IngestReport",
    "Refusal",
    "RelocateReport",
    "RemoveReport",
    "SourceFile",
    "SourceRoot",
    "discover",
    "ingest",
    "list_sources",
    "relocate_sources",
    "remove_sources",
    "sample_corpus",
]
