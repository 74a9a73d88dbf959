"""A whole-collection verify in a child process (adr/0040).

Verifying re-reads every source: seconds of pure-Python work on a large collection. In a
worker thread it held the interpreter's lock against every search and could not be stopped
when its request timed out. In its own process it uses another core, searches of the same
read view keep answering, and a cancelled or timed-out request ends it at once (``terminate``).
The child opens the collection afresh (the generation it verified is in the reply) and sends
its progress and its result through a pipe.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import threading
from multiprocessing.connection import Connection
from pathlib import Path
from typing import Any

from groundkit import CollectionVerification, GroundkitError, StoredCollection
from groundkit_serve.service_errors import ServiceError, from_library
from groundkit_serve.work import CancelledError, Work

__all__ = ["running_verifications", "verify_in_child"]

_POLL_S = 0.05
_NICENESS = 10


class _Counts:
    """Whole-collection verifies running now, and those stopped by their request's cancel."""

    def __init__(self) -> None:
        self.running = 0
        self.cancelled = 0
        self._lock = threading.Lock()

    def add(self, running: int = 0, cancelled: int = 0) -> None:
        with self._lock:
            self.running += running
            self.cancelled += cancelled


_COUNTS = _Counts()


def running_verifications() -> tuple[int, int]:
    """(running now, cancelled so far): status fields."""
    return _COUNTS.running, _COUNTS.cancelled


def _verify(index_dir: str, collection: str, send: Connection) -> tuple[int, Any]:
    def progress(done: int, total: int) -> None:
        send.send(("progress", done, total))

    return StoredCollection(index_dir, collection).verify(progress=progress)


def _child(index_dir: str, collection: str, send: Connection) -> None:
    """The child's whole life: verify, send ("done", generation, audit) or ("error", ...).
    It runs at a lower CPU priority: searches are waited for, a collection's audit is not."""
    with contextlib.suppress(AttributeError, OSError):  # no nice() on every platform
        os.nice(_NICENESS)
    try:
        generation, audit = _verify(index_dir, collection, send)
        send.send(("done", generation, audit))
    except GroundkitError as exc:
        error = from_library(exc)
        send.send(("error", error.status, error.code, error.message, error.subject))
    except Exception as exc:  # the reply says what failed, never a traceback
        send.send(("error", 500, "internal", f"verify failed ({type(exc).__name__})", None))
    finally:
        send.close()


def verify_in_child(
    index_dir: Path, collection: str, work: Work
) -> tuple[int, CollectionVerification]:
    """Verify ``collection`` in a child process; its progress goes to ``work``, and a
    cancelled ``work`` ends the child (``CancelledError`` is raised here)."""
    context = multiprocessing.get_context("spawn")  # no fork of a threaded server
    receive, send = context.Pipe(duplex=False)
    child = context.Process(
        target=_child, args=(str(index_dir), collection, send), daemon=True, name="verify"
    )
    _COUNTS.add(running=1)
    try:
        child.start()
        send.close()
        while True:
            work.check()
            if not receive.poll(_POLL_S):
                if not child.is_alive() and not receive.poll():
                    raise ServiceError(500, "internal", "the verify process ended without a reply")
                continue
            try:
                message = receive.recv()
            except EOFError:
                raise ServiceError(
                    500, "internal", "the verify process ended without a reply"
                ) from None
            if message[0] == "progress":
                work.report(message[1], message[2])
            elif message[0] == "done":
                return message[1], message[2]
            else:
                raise ServiceError(*message[1:])
    except CancelledError:
        _COUNTS.add(cancelled=1)
        raise
    finally:
        if child.is_alive():
            child.terminate()
        child.join(10)
        receive.close()
        _COUNTS.add(running=-1)
