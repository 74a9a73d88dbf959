"""``--processes N``: N server processes sharing one listening socket (pre-fork, adr/0057).

The parent binds the socket (``http_app.listen``), forks N children and then only supervises:
each child builds its own app, runtime and read views after the fork (no threads or open
collections cross it) and accepts from the shared socket, so the kernel spreads connections
over them. SIGTERM or Ctrl-C to the parent is passed to every child, each of which drains under
``--grace`` as one process would; a child that dies otherwise is started again. POSIX only
(``os.fork``).
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
import threading
import time
import traceback
from collections.abc import Callable
from types import FrameType

__all__ = ["available_cores", "serve_forked"]

log = logging.getLogger("groundkit.serve")
_RESTART_PAUSE_S = 0.5
"""Before starting a child again: a crash loop then costs little CPU."""
_ORPHAN_CHECK_S = 1.0


def available_cores() -> int:
    """The cores this process may run on (its affinity mask where the OS has one)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # macOS, Windows
        return max(1, os.cpu_count() or 1)


def _end_with(parent: int) -> None:
    """Stop this child (SIGTERM: its graceful drain) once ``parent`` is gone, killed even, so
    that no orphan keeps serving the socket."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(_ORPHAN_CHECK_S)
        os.kill(os.getpid(), signal.SIGTERM)

    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def serve_forked(sock: socket.socket, processes: int, child: Callable[[socket.socket], int]) -> int:
    """Run ``child(sock)`` in ``processes`` forked processes until a signal stops them all;
    0 once every child has exited after the stop."""
    children: dict[int, int] = {}  # pid -> slot
    stopping = False
    parent = os.getpid()

    def start(slot: int) -> None:
        pid = os.fork()
        if pid == 0:  # the child: the parent's handlers are not its own
            code = 1
            try:
                signal.signal(signal.SIGTERM, signal.SIG_DFL)
                signal.signal(signal.SIGINT, signal.default_int_handler)
                _end_with(parent)
                code = child(sock)
            except KeyboardInterrupt:
                code = 130
            except BaseException:  # a child never returns into the parent's loop
                traceback.print_exc(file=sys.stderr)
            finally:
                sys.stderr.flush()
                os._exit(code)
        children[pid] = slot

    def stop(signum: int, frame: FrameType | None) -> None:
        nonlocal stopping
        stopping = True
        for pid in list(children):  # each drains under its own --grace
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGTERM)

    previous = {s: signal.signal(s, stop) for s in (signal.SIGTERM, signal.SIGINT)}
    try:
        for slot in range(processes):
            start(slot)
        while children:
            try:
                pid, status = os.wait()
            except ChildProcessError:
                break
            slot = children.pop(pid, -1)
            if slot >= 0 and not stopping:
                log.warning(
                    "server process ended; starting another",
                    extra={"status": os.waitstatus_to_exitcode(status)},
                )
                time.sleep(_RESTART_PAUSE_S)
                if not stopping:
                    start(slot)
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        sock.close()
    return 0
