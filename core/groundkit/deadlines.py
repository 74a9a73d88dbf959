"""A search's deadline, checked cooperatively where its work can grow (expansion, scoring).

A service sets one per request (``with deadline(2.0): searcher.search(...)``); the loops that
can run long call ``check_deadline()``, which raises ``SearchTimeoutError`` once the time is up,
so a request answered with a timeout spends no more CPU (adr/0061). The deadline is a context
variable: a thread started with ``contextvars.copy_context()`` (``asyncio.to_thread``) keeps it.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from groundkit.errors import SearchTimeoutError

__all__ = ["check_deadline", "deadline", "remaining"]

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("groundkit_deadline", default=None)
"""(monotonic time it ends, seconds it was given), or None: no deadline."""


@contextmanager
def deadline(seconds: float | None) -> Iterator[None]:
    """Searches run inside end with ``SearchTimeoutError`` after ``seconds`` (None: never)."""
    if seconds is not None and not seconds > 0:
        raise ValueError(f"a deadline needs seconds > 0, got {seconds!r}")
    given = None if seconds is None else (time.monotonic() + seconds, seconds)
    token = _DEADLINE.set(given)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def remaining() -> float | None:
    """Seconds left before the deadline (may be negative), or None without one."""
    given = _DEADLINE.get()
    return None if given is None else given[0] - time.monotonic()


def check_deadline() -> None:
    """Raise ``SearchTimeoutError`` when the current deadline has passed."""
    given = _DEADLINE.get()
    if given is not None and time.monotonic() > given[0]:
        raise SearchTimeoutError(
            f"the search ran past its deadline of {given[1]:g} s and was stopped; shorten the "
            "query or turn off fuzzy/prefix, or allow more time",
            subject="deadline",
        )
