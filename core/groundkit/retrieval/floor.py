"""The dense similarity floor a collection records for its embedder (``dense-floor.json``).

Under the floor a passage is taken as unrelated to the query: dense search drops it and
hybrid search does not count it as evidence, so both can answer "nothing here" (adr/0024).
The floor belongs to an embedding identity: the record holds the identity it was measured
for, and a record for another identity is refused rather than applied. Precedence: a floor
passed to the search, then the collection's record (a static site ships it in its head,
``StaticReader.shipped_dense_floor``, adr/0070), then the embedder's own default.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.errors import ConfigurationError
from groundkit.manifest import EmbeddingIdentity, ManifestError

__all__ = [
    "FLOOR_FILE",
    "FloorRecord",
    "check_share",
    "read_floor",
    "shipped_floor",
    "write_floor",
]

FLOOR_FILE = "dense-floor.json"


@dataclass(frozen=True, slots=True)
class FloorRecord:
    """A floor for one embedding identity, and how it was set (``measured`` holds the rates)."""

    floor: float
    identity: EmbeddingIdentity
    measured: dict[str, Any] | None = None
    lexical_share: float | None = None
    """Hybrid's lexical evidence bar for queries under the floor (adr/0049); None: the default."""

    def __post_init__(self) -> None:
        if not math.isfinite(check_floor(self.floor)):
            raise ConfigurationError(f"a recorded floor must be finite, got {self.floor!r}")
        if self.lexical_share is not None:
            check_share(self.lexical_share)

    @property
    def source(self) -> str:
        """How it was set: ``self-calibrated`` (adr/0060) or ``collection`` (calibrate)."""
        measured = self.measured or {}
        return "self-calibrated" if measured.get("source") == "self" else "collection"

    @classmethod
    def from_dict(cls, raw: Mapping[str, Any]) -> FloorRecord:
        """The record ``to_dict`` gave (``KeyError``, ``TypeError``, ``ManifestError`` or
        ``ConfigurationError`` where it is not one)."""
        return cls(
            raw["floor"],
            EmbeddingIdentity.from_dict(raw["embedding"]),
            raw.get("measured"),
            raw.get("lexical_share"),
        )

    def to_dict(self) -> dict[str, Any]:
        out = {"floor": self.floor, "embedding": self.identity.to_dict(), "measured": self.measured}
        if self.lexical_share is not None:  # absent: records from before adr/0049 stay equal
            out["lexical_share"] = self.lexical_share
        return out


def check_share(value: object) -> float:
    """``value`` as a minimum lexical share: a number from 0 to 1."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise ConfigurationError(
            f"a minimum lexical share must be a number from 0 to 1, got {value!r}",
            subject=str(value),
        )
    return float(value)


def check_floor(value: object) -> float:
    """``value`` as a floor: a number, or ``-inf`` for none (cosine is never under -1)."""
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or math.isnan(value)
        or value == math.inf
    ):
        raise ConfigurationError(
            f"a similarity floor must be a finite number (or -inf: none), got {value!r}",
            subject=str(value),
        )
    return float(value)


def _path(location: str) -> Path | None:
    path = Path(location)
    return path.parent / FLOOR_FILE if path.is_file() else None


def read_floor(location: str, identity: EmbeddingIdentity) -> FloorRecord | None:
    """The floor recorded beside the collection file ``location``, or None.

    ``ConfigurationError`` when the record is unreadable or was measured for another identity.
    """
    path = _path(location)
    if path is None:
        return None
    try:
        record = FloorRecord.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except FileNotFoundError:
        return None
    except (OSError, ValueError, KeyError, TypeError, ManifestError, ConfigurationError) as exc:
        raise ConfigurationError(
            f"{path} is unreadable ({exc}); set the floor again with `groundkit calibrate`, "
            "or delete the file to use the embedder's default",
            subject=str(path),
        ) from None
    if record.identity != identity:
        raise ConfigurationError(
            f"{path} holds a floor for embedding {record.identity.to_json()}, not this "
            f"collection's {identity.to_json()}; measure it again with `groundkit calibrate`, "
            "or delete the file",
            subject=str(path),
        )
    return record


def shipped_floor(
    raw: Mapping[str, Any], location: str, identity: EmbeddingIdentity
) -> FloorRecord:
    """The floor a store ships (a static site's head), checked as a recorded one is."""
    try:
        record = FloorRecord.from_dict(raw)
    except (ValueError, KeyError, TypeError, ManifestError, ConfigurationError) as exc:
        raise ConfigurationError(
            f"{location}: its dense floor is unreadable ({exc}); rebuild the site",
            subject=location,
        ) from None
    if record.identity != identity:
        raise ConfigurationError(
            f"{location} ships a floor for embedding {record.identity.to_json()}, not its "
            f"collection's {identity.to_json()}; rebuild the site",
            subject=location,
        )
    return record


def write_floor(location: str, record: FloorRecord) -> Path:
    """Record ``record`` beside the collection file ``location`` (atomically)."""
    path = _path(location)
    if path is None:
        raise ConfigurationError(
            f"collection {location} is not a stored collection file; a floor can only be "
            "recorded for one (pass min_similarity to each search instead)",
            subject=location,
        )
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(record.to_dict(), indent=2) + "\n", encoding="utf-8")
    os.replace(temporary, path)
    return path
