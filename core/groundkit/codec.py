"""Canonical JSON: the one byte form for identities, fingerprints and stored metadata.

Keys sorted, no whitespace, UTF-8 kept as is; the same value gives the same bytes on every
platform, so identities can be compared as strings.
"""

from __future__ import annotations

import json
from typing import Any

__all__ = ["decode", "encode"]


def encode(value: Any) -> str:
    """Encode ``value`` canonically; NaN and infinity are refused."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def decode(text: str) -> Any:
    """Decode JSON text, refusing NaN and infinity literals."""

    def refuse(constant: str) -> Any:
        raise ValueError(f"non-finite number {constant} is not allowed")

    return json.loads(text, parse_constant=refuse)
