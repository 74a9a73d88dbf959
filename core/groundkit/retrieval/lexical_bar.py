"""The lexical evidence bar a collection records for bm25 search (``lexical-bar.json``).

A bm25 search answers only when BM25's best score reaches this share of the query's ideal
score (``abstention.lexical_share``), where the collection's own calibration found that the
share separates on-topic from off-topic queries (adr/0060); without a record, or where it
did not separate, bm25 never abstains (as before). A static site ships the record in its
head (``StaticReader.shipped_lexical_bar``, adr/0069).
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.errors import ConfigurationError
from groundkit.retrieval.floor import check_share

__all__ = [
    "LEXICAL_BAR_FILE",
    "LexicalBar",
    "read_lexical_bar",
    "shipped_lexical_bar",
    "write_lexical_bar",
]

LEXICAL_BAR_FILE = "lexical-bar.json"


@dataclass(frozen=True, slots=True)
class LexicalBar:
    """bm25's bar (``share``), whether it is applied (``separates``), the collection
    generation it was measured on and how (``measured``: the source and the rates)."""

    share: float
    separates: bool
    generation: int
    measured: dict[str, Any]

    def __post_init__(self) -> None:
        check_share(self.share)
        if not isinstance(self.separates, bool) or not isinstance(self.generation, int):
            raise ConfigurationError("a lexical bar needs separates (bool) and generation (int)")

    @property
    def source(self) -> str:
        """How it was set: ``self-calibrated`` or ``collection`` (by the user)."""
        return "self-calibrated" if self.measured.get("source") == "self" else "collection"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> LexicalBar:
        """The bar ``to_dict`` gave (``KeyError``, ``TypeError`` or ``ConfigurationError``
        where it is not one)."""
        return cls(raw["share"], raw["separates"], raw["generation"], dict(raw["measured"]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "share": self.share,
            "separates": self.separates,
            "generation": self.generation,
            "measured": self.measured,
        }


def _path(location: str) -> Path | None:
    path = Path(location)
    return path.parent / LEXICAL_BAR_FILE if path.is_file() else None


def read_lexical_bar(location: str) -> LexicalBar | None:
    """The bar recorded beside the collection file ``location``, or None
    (``ConfigurationError`` when the record is unreadable)."""
    path = _path(location)
    if path is None:
        return None
    try:
        return LexicalBar.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, ConfigurationError) as exc:
        raise ConfigurationError(
            f"{path} is unreadable ({exc}); measure it again with `groundkit calibrate --self "
            "--write`, or delete the file (bm25 then does not abstain until an ingest "
            "calibrates the collection again)",
            subject=str(path),
        ) from None


def shipped_lexical_bar(raw: Mapping[str, Any], location: str) -> LexicalBar:
    """The bar a store ships (a static site's head), checked as a recorded one is."""
    try:
        return LexicalBar.from_dict(raw)
    except (KeyError, TypeError, ValueError, ConfigurationError) as exc:
        raise ConfigurationError(
            f"{location}: its lexical bar is unreadable ({exc}); rebuild the site",
            subject=location,
        ) from None


def write_lexical_bar(location: str, bar: LexicalBar) -> Path:
    """Record ``bar`` beside the collection file ``location`` (atomically)."""
    path = _path(location)
    if path is None:
        raise ConfigurationError(
            f"collection {location} is not a stored collection file; a lexical bar can only be "
            "recorded for one",
            subject=location,
        )
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(bar.to_dict(), indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path
