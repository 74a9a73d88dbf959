"""The parser (one sub-parser per command module) and ``main``: run a command, map its error."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from groundkit.cli.commands import COMMANDS
from groundkit.cli.exits import ExitCode, fail, print_error
from groundkit.cli.options import apply_native_options, parents
from groundkit.config import VERSION
from groundkit.errors import GroundkitError

__all__ = ["build_parser", "main"]

EPILOG = """\
examples:
  groundkit ingest sample                  # the bundled sample corpus
  groundkit ingest docs/ --collection handbook
  groundkit search "how do I report a leak" --top-k 5
  groundkit search "boil water notice" --json | jq '.results[0]'
  groundkit ingest sample --embedder hash --collection dense
  groundkit search "who fixes a burst main" --mode hybrid --collection dense
  groundkit ingest docs/ --embedder minilm --vector-store usearch --collection sem
  groundkit search "leak" --mode hybrid --collection sem --rerank --reranker models/ce
  groundkit calibrate --collection sem --queries mine.txt --off-topic other.txt --write
  groundkit verify                         # re-check every citation; non-zero if any fails
  groundkit status --json
  groundkit check                          # is the collection file sound? (exit 6 if not)

exit codes: 0 ok, 1 error, 2 usage or an invalid value, 3 no such collection,
            4 input refused, 5 a citation is not verified, 6 collection damaged
            (with --json, errors are a JSON object on stderr)
"""


class UsageError(Exception):
    """An argparse error, raised rather than printed so ``main`` can print it as JSON."""

    def __init__(self, message: str, parser: argparse.ArgumentParser) -> None:
        super().__init__(message)
        self.message = message
        self.parser = parser


class ArgumentParser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self)


def build_parser() -> argparse.ArgumentParser:
    parser = ArgumentParser(
        prog="groundkit",
        description="Index documents, search them, and re-check every citation against its source.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"groundkit {VERSION}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    shared = parents()
    for command in COMMANDS:
        command.add_parser(commands, shared)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in arguments
    try:
        args = build_parser().parse_args(arguments)
    except UsageError as exc:  # as argparse prints it, or as JSON
        if as_json:
            message = f"{exc.parser.prog}: {exc.message}"
            print_error(message, ExitCode.USAGE, kind="UsageError", as_json=True)
        else:
            exc.parser.print_usage(sys.stderr)
            print(f"{exc.parser.prog}: error: {exc.message}", file=sys.stderr)
        return int(ExitCode.USAGE)
    apply_native_options(args)
    handlers = {command.NAME: command.run for command in COMMANDS}
    try:
        return int(handlers[args.command](args))
    except GroundkitError as exc:
        return fail(exc, as_json=bool(getattr(args, "json", False)))
    except KeyboardInterrupt:
        print("groundkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout left (`| head`): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
