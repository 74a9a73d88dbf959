"""A dict that fills itself: a missing key's value is computed by the lookup that misses it.

Hot paths look many keys up in one ``map`` over the dict's own ``__getitem__``: a hit costs a
C-level lookup and no Python loop, and only a miss runs Python
(adr/0038-ingest-speed-third-pass.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TypeVar

__all__ = ["Memo"]

K = TypeVar("K")
V = TypeVar("V")


class Memo(dict[K, V]):
    """``self[key]`` is ``fill(key)``, computed on its first lookup and kept; with ``limit``,
    the dict starts over (empties) before a key would make it hold more than that."""

    __slots__ = ("_fill", "_limit")

    def __init__(self, fill: Callable[[K], V], limit: int | None = None) -> None:
        super().__init__()
        self._fill = fill
        self._limit = limit

    def __missing__(self, key: K) -> V:
        value = self._fill(key)
        if self._limit is not None and len(self) >= self._limit:
            self.clear()
        self[key] = value
        return value
