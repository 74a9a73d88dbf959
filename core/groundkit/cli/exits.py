"""The command's exit codes (adr/0006) and how library errors map onto them."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from enum import IntEnum

from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    CorruptCollectionError,
    GroundkitError,
    IngestionError,
)

__all__ = ["ExitCode", "exit_code_for", "fail", "print_error"]


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    NO_COLLECTION = 3
    REFUSED_INPUT = 4
    NOT_VERIFIED = 5
    DAMAGED = 6
    PORT_IN_USE = 7


def exit_code_for(exc: GroundkitError) -> ExitCode:
    """The exit code of a library error: the most specific class wins."""
    if isinstance(exc, CollectionNotFoundError):
        return ExitCode.NO_COLLECTION
    if isinstance(exc, CorruptCollectionError):
        return ExitCode.DAMAGED
    if isinstance(exc, IngestionError):
        return ExitCode.REFUSED_INPUT
    if isinstance(exc, ConfigurationError):
        return ExitCode.USAGE
    return ExitCode.ERROR


def fail(
    exc: GroundkitError, *, as_json: bool = False, say: Callable[[str], str] | None = None
) -> int:
    """Print the error's message (never a traceback), through ``say`` where given (the
    command's own words for the fields it names), and return its exit code."""
    code = exit_code_for(exc)
    message = exc.message if say is None else say(exc.message)
    print_error(message, code, kind=type(exc).__name__, subject=exc.subject, as_json=as_json)
    return int(code)


def print_error(
    message: str,
    code: ExitCode,
    *,
    kind: str,
    subject: str | None = None,
    as_json: bool = False,
) -> None:
    """One error on stderr: ``groundkit: error: ...``, or with ``--json`` a JSON object
    ``{"error": {"type", "exit_code", "message", "subject"}}`` on one line."""
    if as_json:
        error = {"type": kind, "exit_code": int(code), "message": message, "subject": subject}
        print(json.dumps({"error": error}, ensure_ascii=False), file=sys.stderr)
    else:
        print(f"groundkit: error: {message}", file=sys.stderr)
