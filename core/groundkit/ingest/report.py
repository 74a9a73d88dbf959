"""What an ingest did, file by file."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from groundkit.ingest.discover import Refusal

__all__ = ["IngestReport"]


@dataclass
class IngestReport:
    """Sources indexed for the first time, unchanged (skipped), replaced, removed and refused."""

    root: str
    collection: str
    indexed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    replaced: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    chunks_written: int = 0
    generation: int = 0
    elapsed_s: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.refused

    def to_dict(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "collection": self.collection,
            "indexed": self.indexed,
            "unchanged": self.unchanged,
            "replaced": self.replaced,
            "removed": self.removed,
            "refused": [
                {"source": r.source, "reason": r.reason, "message": r.message} for r in self.refused
            ],
            "chunks_written": self.chunks_written,
            "generation": self.generation,
            "elapsed_s": round(self.elapsed_s, 3),
        }

    def summary(self) -> str:
        return (
            f"{len(self.indexed)} indexed, {len(self.unchanged)} unchanged, "
            f"{len(self.replaced)} replaced, {len(self.removed)} removed, "
            f"{len(self.refused)} refused ({self.chunks_written} chunks written, "
            f"generation {self.generation}, {self.elapsed_s:.2f} s)"
        )
