"""The command's exit codes (adr/0006) and how library errors map onto them."""

from __future__ import annotations

import sys
from enum import IntEnum

from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    GroundkitError,
    IngestionError,
)

__all__ = ["ExitCode", "exit_code_for", "fail"]


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    NO_COLLECTION = 3
    REFUSED_INPUT = 4
    NOT_VERIFIED = 5


def exit_code_for(exc: GroundkitError) -> ExitCode:
    """The exit code of a library error: the most specific class wins."""
    if isinstance(exc, CollectionNotFoundError):
        return ExitCode.NO_COLLECTION
    if isinstance(exc, IngestionError):
        return ExitCode.REFUSED_INPUT
    if isinstance(exc, ConfigurationError):
        return ExitCode.USAGE
    return ExitCode.ERROR


def fail(exc: GroundkitError) -> int:
    """Print the error's message (never a traceback) and return its exit code."""
    print(f"groundkit: error: {exc.message}", file=sys.stderr)
    return int(exit_code_for(exc))
