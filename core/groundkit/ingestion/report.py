"""What an ingest did, file by file."""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from groundkit.ingestion.discover import Refusal

__all__ = ["UNSUPPORTED_REASONS", "IngestReport"]

UNSUPPORTED_REASONS = frozenset({"extractor_missing"})
"""Refusals of a file type this installation cannot read (a PDF without the pdf extra): the
file is fine, the set-up lacks a part. Any other refusal is a file that could not be read."""


REFUSALS_SHOWN = 20
"""Paths listed under one refusal group in ``refusals_text`` (``to_dict`` lists all)."""
_WHERE = re.compile(r" \((?:byte|code point) \d+: [^)]*\)| at byte \d+")
"""Where in its file a refusal was found: files that differ only there share one fix."""


def _fix(refusal: Refusal) -> str:
    """A refusal's message without its leading ``source:`` (the path is listed once, apart)."""
    prefix = f"{refusal.source}: "
    return refusal.message[len(prefix) :] if refusal.message.startswith(prefix) else refusal.message


def _where(fix: str) -> str:
    """Where in its file a refusal was found: ``byte 7: invalid start byte``."""
    return "; ".join(found.strip(" ()").removeprefix("at ") for found in _WHERE.findall(fix))


@dataclass
class IngestReport:
    """Sources indexed for the first time, unchanged (skipped), replaced, removed and refused."""

    root: str
    """The folder, file or URL ingested."""
    collection: str
    """The collection written."""
    indexed: list[str] = field(default_factory=list)
    """Sources indexed for the first time."""
    unchanged: list[str] = field(default_factory=list)
    """Sources skipped because nothing that decides their passages changed."""
    replaced: list[str] = field(default_factory=list)
    """Sources re-indexed because they changed."""
    removed: list[str] = field(default_factory=list)
    """Sources removed because they vanished from the folder."""
    refused: list[Refusal] = field(default_factory=list)
    """Files not stored, each with its reason and what to do (``refusals_text``)."""
    chunks_written: int = 0
    """Passages written by this ingest."""
    generation: int = 0
    """The collection's generation afterwards (one per document written)."""
    elapsed_s: float = 0.0
    """Wall-clock seconds the ingest took."""
    skipped: dict[str, int] = field(default_factory=dict)
    """Files not read for their extension, by extension (``""``: none); hidden files aside."""
    extensions: tuple[str, ...] = ()
    """The extensions that were read."""
    classes: dict[str, str] = field(default_factory=dict)
    """Each source written (indexed or replaced) -> its source class (``text``, ``extracted``)."""
    extractors: dict[str, str] = field(default_factory=dict)
    """Each extracted source written -> its extractor (``pdf 1+pypdf-7.1.1 (plain)``)."""
    excluded: list[str] = field(default_factory=list)
    """Files and folders (``name/``) not read because an exclude pattern named them."""
    calibration: dict[str, Any] | None = None
    """The self-calibration the ingest recorded (``SelfCalibration.to_dict``), None where it
    did not calibrate (nothing changed, or ``calibrate=False``: adr/0072)."""
    created: bool = True
    """False where the collection was new and nothing was stored in it: it was not kept, so a
    search says there is none rather than "no results"."""

    @property
    def ok(self) -> bool:
        return not self.refused

    @property
    def unsupported(self) -> list[Refusal]:
        """The refusals of file types this installation cannot read (``UNSUPPORTED_REASONS``)."""
        return [r for r in self.refused if r.reason in UNSUPPORTED_REASONS]

    @property
    def complete(self) -> bool:
        """True when every readable file of a supported type was indexed and something matched:
        what the command line's exit 0 means (a refused unsupported type alone is not a failure
        of the ingest)."""
        return len(self.unsupported) == len(self.refused) and not self.nothing_matched

    @property
    def nothing_matched(self) -> bool:
        """True when a folder held no file with a wanted extension (and none was refused)."""
        return not (self.indexed or self.unchanged or self.replaced or self.refused)

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
            "skipped": dict(self.skipped),
            "excluded": list(self.excluded),
            "unsupported": len(self.unsupported),
            "complete": self.complete,
            "extensions": list(self.extensions),
            "nothing_matched": self.nothing_matched,
            "classes": dict(self.classes),
            "extractors": dict(self.extractors),
            "chunks_written": self.chunks_written,
            "generation": self.generation,
            "elapsed_s": round(self.elapsed_s, 3),
            "calibration": self.calibration,
            "created": self.created,
        }

    def summary(self, *, refusals: bool = True) -> str:
        """The counts, then what was skipped, excluded and (``refusals``) each refusal once,
        grouped by its fix (``refusals_text``)."""
        skipped = sum(self.skipped.values())
        line = (
            f"{len(self.indexed)} indexed, {len(self.unchanged)} unchanged, "
            f"{len(self.replaced)} replaced, {len(self.removed)} removed, "
            f"{len(self.refused)} refused, {skipped} skipped by extension, "
            f"{len(self.excluded)} excluded "
            f"({self.chunks_written} chunks written, "
            f"generation {self.generation}, {self.elapsed_s:.2f} s)"
        )
        if self.classes:
            line += f"\nwritten by class: {self.classes_text()}"
        if self.nothing_matched:
            line += f"\n{self.nothing_matched_message()}"
        elif skipped:
            line += f"\nskipped by extension: {self.skipped_text()} (--extensions to read them)"
        if self.excluded:
            shown = ", ".join(self.excluded[:5]) + (", ..." if len(self.excluded) > 5 else "")
            line += f"\nexcluded: {shown} (--exclude and --no-default-exclude choose)"
        if self.unsupported:
            line += f"\n{self.unsupported_text()}"
        if refusals and self.refused:
            line += f"\n{self.refusals_text()}"
        return line

    def refusals_text(self) -> str:
        """Each refusal once, grouped by reason and fix: the fix once, then its paths (files
        whose fix differs only in where the file broke share it, each path saying where)."""
        groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
        for refusal in self.refused:
            fix = _fix(refusal)
            groups.setdefault((refusal.reason, _WHERE.sub("", fix)), []).append(
                (refusal.source, fix)
            )
        lines = [f"refused {len(self.refused)} file(s), nothing stored from them:"]
        for (reason, general), found in sorted(groups.items()):
            fixes = {fix for _, fix in found}
            one = fixes.pop() if len(fixes) == 1 else None  # else each path says where
            lines.append(f"  {reason} ({len(found)}): {one or general}")
            lines.extend(
                f"    {source}" + ("" if one else f" ({_where(fix)})")
                for source, fix in found[:REFUSALS_SHOWN]
            )
            if len(found) > REFUSALS_SHOWN:
                lines.append(f"    ... and {len(found) - REFUSALS_SHOWN} more (--json lists all)")
        return "\n".join(lines)

    def unsupported_text(self) -> str:
        """One line on the refused unsupported types: how many, and that the rest was indexed."""
        kinds = sorted({r.source.rsplit(".", 1)[-1].lower() for r in self.unsupported})
        fixes = "; ".join(sorted({_fix(r) for r in self.unsupported}))
        return (
            f"{len(self.unsupported)} file(s) of a type this installation cannot read "
            f"({', '.join('.' + k for k in kinds)}: {fixes}); "
            "everything else readable was indexed"
        )

    def classes_text(self) -> str:
        """``text 2, extracted 3 via html 1 (main-text) x2, pdf 1+pypdf-7.1.1 (plain) x1``."""
        counts = Counter(self.classes.values())
        parts = []
        for name in sorted(counts, key=lambda n: (n != "text", n)):
            part = f"{name} {counts[name]}"
            used = Counter(
                extractor
                for source, extractor in self.extractors.items()
                if self.classes.get(source) == name
            )
            if used:
                part += " via " + ", ".join(f"{e} x{n}" for e, n in sorted(used.items()))
            parts.append(part)
        return ", ".join(parts)

    def skipped_text(self) -> str:
        """``.png 3, .py 1``: the extensions skipped, most files first."""
        ranked = sorted(self.skipped.items(), key=lambda item: (-item[1], item[0]))
        return ", ".join(f"{ext or '(no extension)'} {count}" for ext, count in ranked)

    def nothing_matched_message(self) -> str:
        wanted = " ".join(self.extensions)
        if not self.skipped:
            return f"nothing matched: {self.root} holds no file to read (looked for {wanted})"
        return (
            f"nothing matched: no file under {self.root} ends in {wanted}; it holds "
            f"{self.skipped_text()}; pass --extensions to read those (extensions=... in Python)"
        )
