"""Canonical JSON: the one byte form for identities, fingerprints, manifests and stored metadata.

Keys sorted, no whitespace, UTF-8 kept as is; the same value gives the same bytes on every
platform, so identities can be compared as strings. msgspec encodes and decodes when it is
importable, the standard library otherwise; both give identical bytes and values (see
adr/0009-dense-vectors-and-manifest.md). Only JSON values are accepted: ``dict`` with ``str``
keys, ``list``/``tuple``, ``str``, ``int``, finite ``float``, ``bool`` and ``None``.
"""

from __future__ import annotations

import json
import math
from types import ModuleType
from typing import Any

__all__ = ["ACCELERATED", "decode", "encode"]


def _load_msgspec() -> ModuleType | None:
    try:
        import msgspec
    except ImportError:
        return None
    return msgspec


_msgspec = _load_msgspec()
ACCELERATED: bool = _msgspec is not None
"""True when msgspec is doing the work (the output is the same either way)."""


def _needs_stdlib(value: Any) -> bool:
    """Check that ``value`` is plain JSON; True when it holds a float msgspec spells differently.

    msgspec writes exponents as ``1e-7`` where ``json`` writes ``1e-07``, so such values take the
    standard-library path. Raises what ``json.dumps`` would: ``TypeError`` or ``ValueError``.
    """
    stack = [value]
    awkward = False
    while stack:
        item = stack.pop()
        kind = type(item)
        if kind is str or kind is int or kind is bool or item is None:
            continue
        if kind is float:
            if not math.isfinite(item):
                raise ValueError(f"non-finite number {item!r} cannot be encoded as JSON")
            awkward = awkward or "e" in repr(item)
        elif kind is dict:
            for key in item:
                if type(key) is not str:
                    raise TypeError(f"JSON object keys must be str, got {type(key).__name__}")
            stack.extend(item.values())
        elif kind is list or kind is tuple:
            stack.extend(item)
        else:
            raise TypeError(f"a {kind.__name__} cannot be encoded as JSON")
    return awkward


def _stdlib_encode(value: Any) -> str:
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def _finite_float(text: str) -> float:
    number = float(text)
    if not math.isfinite(number):
        raise ValueError(f"number {text} is out of range")
    return number


def _refuse_constant(constant: str) -> Any:
    raise ValueError(f"non-finite number {constant} is not allowed")


def _stdlib_decode(text: str) -> Any:
    return json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)


def encode(value: Any, *, accelerated: bool | None = None) -> str:
    """Encode ``value`` canonically; NaN, infinity and non-JSON types are refused.

    ``accelerated=False`` forces the standard-library path (tests compare the two).
    """
    awkward = _needs_stdlib(value)
    if _msgspec is None or awkward or accelerated is False:
        return _stdlib_encode(value)
    try:
        encoded: bytes = _msgspec.json.encode(value, order="sorted")
    except UnicodeEncodeError:  # a lone surrogate: the standard library keeps it as is
        return _stdlib_encode(value)
    return encoded.decode("utf-8")


def decode(text: str, *, accelerated: bool | None = None) -> Any:
    """Decode JSON text, refusing NaN and infinity (``ValueError``).

    Input msgspec declines (a lone surrogate escape, an integer beyond 64 bits, malformed text)
    is handed to the standard library, which decides: the result never depends on the path.
    """
    if text == "{}":  # most stored metadata: skip the parser (a new dict, as it would give)
        return {}
    if _msgspec is not None and accelerated is not False:
        try:
            return _msgspec.json.decode(text)
        except (_msgspec.DecodeError, _msgspec.ValidationError):
            pass
    return _stdlib_decode(text)
