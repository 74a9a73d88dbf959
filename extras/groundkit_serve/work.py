"""The request a worker thread is doing: a cancel flag and a progress sink, set by
``Registry.call`` and read by long tools without threading them through every signature.

A request that times out, or that its MCP client cancels, sets ``cancel``; a long tool checks
it between steps (``check``) and stops, so no abandoned work keeps a thread or a process busy.
``anyio.to_thread.run_sync`` runs the worker in a copy of the caller's context, so the
``ContextVar`` holds the request's own ``Work`` there.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from contextvars import ContextVar
from dataclasses import dataclass, field

__all__ = ["CancelledError", "Work", "current_work"]


class CancelledError(Exception):
    """The request was cancelled (timed out, or by its client): its answer is not wanted."""


@dataclass(frozen=True, slots=True)
class Work:
    cancel: threading.Event = field(default_factory=threading.Event)
    progress: Callable[[int, int], None] | None = None

    def check(self) -> None:
        """Raise ``CancelledError`` once the request has been cancelled."""
        if self.cancel.is_set():
            raise CancelledError

    def report(self, done: int, total: int) -> None:
        """Pass progress to the client that asked for it (MCP), if any."""
        if self.progress is not None:
            self.progress(done, total)


_CURRENT: ContextVar[Work | None] = ContextVar("groundkit_serve_work", default=None)


def current_work() -> Work:
    """The running request's ``Work`` (a fresh, never-cancelled one outside a request)."""
    return _CURRENT.get() or Work()


def set_work(work: Work) -> object:
    """Make ``work`` current; returns the token ``reset_work`` takes."""
    return _CURRENT.set(work)


def reset_work(token: object) -> None:
    _CURRENT.reset(token)  # type: ignore[arg-type]
