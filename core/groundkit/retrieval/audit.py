"""``verify_collection``: re-check every citation of a collection, and its index's consistency."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR
from groundkit.errors import RetrievalError
from groundkit.retrieval.citations import (
    SourceTexts,
    Verification,
    citation_for,
    citation_root,
    verify_max_bytes,
)
from groundkit.store.protocols import CollectionReader

__all__ = ["CollectionVerification", "verify_collection", "verify_reader"]


@dataclass(frozen=True, slots=True)
class CollectionVerification:
    """How many citations were checked, each verdict's count, and what did not verify."""

    checked: int
    """Citations re-checked."""
    verified: int
    """Those whose text the source still holds at their offsets."""
    drifted: int
    """Those whose source holds other text there now."""
    unresolvable: int
    """Those whose source could not be read (deleted, unreadable, extra missing)."""
    integrity_problems: tuple[str, ...]
    """Disagreements between the index and the stored chunks."""
    failures: tuple[Verification, ...]
    """The drifted and unresolvable citations' ``Verification``, in collection order."""

    @property
    def ok(self) -> bool:
        """True when every citation verified and the index agrees with the chunks."""
        return not self.failures and not self.integrity_problems

    def summary(self) -> str:
        citations = "citation" if self.checked == 1 else "citations"
        return (
            f"checked {self.checked} {citations}: {self.verified} verified, "
            f"{self.drifted} drifted, {self.unresolvable} unresolvable"
        )

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape ``groundkit verify --json`` prints."""
        return {
            "checked": self.checked,
            "verified": self.verified,
            "drifted": self.drifted,
            "unresolvable": self.unresolvable,
            "integrity_problems": list(self.integrity_problems),
            "failures": [
                {
                    "source": check.citation.source,
                    "start_offset": check.citation.start_offset,
                    "end_offset": check.citation.end_offset,
                    "verdict": check.verdict,
                    "reason": check.reason,
                }
                for check in self.failures
            ],
        }


PROGRESS_EVERY = 500
"""Chunks between two ``progress`` calls of ``verify_reader``."""


def verify_reader(
    reader: CollectionReader,
    *,
    chunk_id: str | None = None,
    root: str | Path | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> CollectionVerification:
    """Re-read each chunk's source (under ``root`` instead of its recorded root, if given),
    each source once: ``iter_chunks`` gives a document's chunks in a row. ``progress(done,
    total)`` is called every ``PROGRESS_EVERY`` chunks and at the end (it may raise to stop)."""
    problems = list(reader.integrity_problems())
    documents = {d.document_id: d for d in reader.iter_documents()}
    checks: list[Verification] = []
    sources = SourceTexts()
    total = reader.chunk_count
    for done, chunk in enumerate(reader.iter_chunks(), 1):
        if progress is not None and done % PROGRESS_EVERY == 0:
            progress(done, total)
        if chunk_id is not None and chunk.chunk_id != chunk_id:
            continue
        document = documents.get(chunk.document_id)
        if document is None:
            problems.append(f"chunk {chunk.chunk_id} has no document record")
            continue
        base = citation_root(document, reader.location) if root is None else root
        checks.append(
            sources.verify(
                citation_for(chunk, document), base, max_bytes=verify_max_bytes(document)
            )
        )
    if chunk_id is not None and not checks and not problems:
        raise RetrievalError(
            f"no chunk with id {chunk_id!r} in {reader.location}; "
            "`groundkit search --json` shows chunk ids",
            subject=chunk_id,
        )
    if progress is not None:
        progress(total, total)
    counts = Counter(check.verdict for check in checks)
    return CollectionVerification(
        checked=len(checks),
        verified=counts["verified"],
        drifted=counts["drifted"],
        unresolvable=counts["unresolvable"],
        integrity_problems=tuple(problems),
        failures=tuple(check for check in checks if not check.ok),
    )


def verify_collection(
    index_dir: str | Path = DEFAULT_INDEX_DIR,
    collection: str = DEFAULT_COLLECTION,
    *,
    chunk_id: str | None = None,
) -> CollectionVerification:
    """Re-check every citation of a stored collection (or only ``chunk_id``'s) against its
    source, and the index against its chunks (``CollectionNotFoundError`` if none)."""
    from groundkit.collection import open_reader

    with open_reader(index_dir, collection) as reader:
        return verify_reader(reader, chunk_id=chunk_id)
