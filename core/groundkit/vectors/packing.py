"""The stored form of a vector: float32, little-endian, ``4 * dimensions`` bytes."""

from __future__ import annotations

import math
import sys
from array import array
from collections.abc import Sequence

__all__ = ["pack_vector", "unpack_vector"]

_BIG_ENDIAN = sys.byteorder == "big"


def pack_vector(vector: Sequence[float], dimensions: int) -> bytes:
    """``vector`` as float32 little-endian bytes; wrong length or non-finite values refused."""
    if len(vector) != dimensions:
        raise ValueError(f"vector has {len(vector)} dimensions, the embedding has {dimensions}")
    packed = array("f", vector)
    if not all(math.isfinite(x) for x in packed):
        raise ValueError("vector holds NaN or infinity (or a value beyond float32's range)")
    if _BIG_ENDIAN:
        packed.byteswap()
    return packed.tobytes()


def unpack_vector(blob: bytes, dimensions: int) -> array[float]:
    """The float32 array stored in ``blob`` (``ValueError`` if its size is wrong)."""
    if len(blob) != 4 * dimensions:
        raise ValueError(f"stored vector has {len(blob)} bytes, expected {4 * dimensions}")
    values = array("f")
    values.frombytes(blob)
    if _BIG_ENDIAN:
        values.byteswap()
    return values
