"""The parser (one sub-parser per command module) and ``main``: run a command, map its error.

Commands plugins add (``groundkit serve``, from the serve extra) are looked up only when the
command asked for is not one of the core's, or for the top-level help (adr/0053): a search
reads no entry points. The help waits ``HELP_WAIT_S`` for them at most, and names every plugin
that failed (or is still loading) in its epilog. A plugin command named as a core command is
ignored and named there too: the collision rule of ``groundkit.plugin_registry`` (adr/0058).
"""

from __future__ import annotations

import argparse
import difflib
import os
import re
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, NoReturn

from groundkit.cli.commands import COMMANDS
from groundkit.cli.exits import ExitCode, fail, print_error
from groundkit.cli.options import apply_native_options, parents
from groundkit.config import VERSION
from groundkit.errors import GroundkitError, InvalidQueryError
from groundkit.plugin_registry import Registry
from groundkit.plugins import (
    HELP_WAIT_S,
    WELL_KNOWN,
    CliCommand,
    failure_note,
    load_plugins,
    record_failure,
    recorded,
)

if TYPE_CHECKING:
    from groundkit.cli.options import Parents

__all__ = ["COMMAND_REGISTRY", "build_parser", "main"]

COMMAND_REGISTRY: Registry[CliCommand] = Registry(
    "command",
    {c.NAME: CliCommand(c.NAME, c.add_parser, c.run) for c in COMMANDS},
    check=lambda name: name.replace("-", "_").isidentifier(),
)
"""The core's commands, then those plugins record (a core name stays the core's)."""

EPILOG = """\
examples:
  groundkit ingest sample                  # 'sample': the bundled sample corpus
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
            4 input refused, 5 a citation is not verified, 6 collection damaged,
            7 the port is in use (serve), 130 interrupted
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


def build_parser(*, plugins: bool = True, wait: float | None = None) -> argparse.ArgumentParser:
    """The ``groundkit`` parser: the core's commands, then (``plugins``) those plugins add.

    ``wait`` bounds how long it waits for the plugins (the help); past it, those loaded so far.
    """
    loaded = load_commands(wait) if plugins else True
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
    if plugins:
        core = {command.NAME for command in COMMANDS}
        for name in COMMAND_REGISTRY.names():
            if name not in core:
                _add_plugin_parser(COMMAND_REGISTRY.get(name), commands, shared)
        note = failure_note()
        if note or not loaded:
            parser.epilog = f"{EPILOG}\n{note.strip() or '(plugins still loading)'}\n"
    return parser


def load_commands(wait: float | None = None) -> bool:
    """Load the plugins (waiting ``wait`` seconds at most); name a command that clashes."""
    loaded = load_plugins(wait=wait)
    core = {command.NAME for command in COMMANDS}
    for name, (plugin, _command) in recorded("command").items():
        if name in core:  # a plugin adds commands, it never replaces one
            record_failure(f"{plugin} (command {name})", "named as a core command; ignored")
    return loaded


def _add_plugin_parser(added: CliCommand, commands: object, shared: Parents) -> None:
    try:
        added.add_parser(commands, shared)
    except Exception as exc:  # one broken plugin hides no other, nor the help
        record_failure(f"command {added.name}", f"{type(exc).__name__}: {exc}")


def _wanted(arguments: Sequence[str]) -> str | None:
    """The command named on the line (its first word not an option), if any."""
    return next((word for word in arguments if not word.startswith("-")), None)


def _usage_error(message: str, *, as_json: bool) -> int:
    if as_json:
        print_error(f"groundkit: {message}", ExitCode.USAGE, kind="UsageError", as_json=True)
    else:
        print(f"groundkit: error: {message}", file=sys.stderr)
    return int(ExitCode.USAGE)


def _with_suggestion(
    exc: UsageError, parser: argparse.ArgumentParser, wanted: str | None
) -> UsageError:
    """An unrecognized option, told by the command's parser with the closest option it has
    (``--topk`` -> ``did you mean --top-k?``); any other error as it was."""
    prefix = "unrecognized arguments: "
    if not exc.message.startswith(prefix):
        return exc
    command = _subparser(parser, wanted) or parser
    options = (option for action in command._actions for option in action.option_strings)
    known = sorted({option for option in options if option.startswith("--")})
    hints = []
    for word in exc.message[len(prefix) :].split():
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=", 1)[0], known, n=1, cutoff=0.7)
            if close:
                hints.append(f"{word.split('=', 1)[0]} -> did you mean {close[0]}?")
    message = exc.message + (f" ({'; '.join(hints)})" if hints else "")
    return UsageError(message, command)


def _as_flags(command: argparse.ArgumentParser) -> Callable[[str], str]:
    """A refused request's message with the command's options for the request fields it names
    (``top_k`` -> ``--top-k``) after it: the message stays the one REST and MCP give (held by
    the parity test). Only ``InvalidQueryError``'s: other messages name paths."""
    flags = {
        action.dest: action.option_strings[-1]
        for action in command._actions
        if "_" in action.dest and action.option_strings
    }
    names = "|".join(map(re.escape, sorted(flags)))
    named = re.compile(rf"(?<![\w./-])({names})(?![\w./-])")  # a field, not a path's part

    def say(message: str) -> str:
        found = dict.fromkeys(match.group(1) for match in named.finditer(message)) if flags else {}
        options = ", ".join(f"{field} is {flags[field]}" for field in found)
        return f"{message} (here {options})" if options else message

    return say


def _subparser(parser: argparse.ArgumentParser, name: str | None) -> argparse.ArgumentParser | None:
    """The sub-parser of command ``name``, if the parser has one."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            found: argparse.ArgumentParser = action.choices[name]
            return found
    return None


def main(argv: Sequence[str] | None = None) -> int:
    arguments = list(sys.argv[1:] if argv is None else argv)
    as_json = "--json" in arguments
    wanted = _wanted(arguments)
    core = {command.NAME for command in COMMANDS}
    with_plugins = wanted not in core
    if with_plugins and wanted is not None:
        load_commands()
        if wanted not in COMMAND_REGISTRY.names() and f"command:{wanted}" in WELL_KNOWN:
            try:
                COMMAND_REGISTRY.get(wanted)
            except GroundkitError as exc:
                return _usage_error(exc.message, as_json=as_json)
    wait = HELP_WAIT_S if with_plugins and wanted is None else None
    parser = build_parser(plugins=with_plugins, wait=wait)
    try:
        args = parser.parse_args(arguments)
    except UsageError as exc:  # as argparse prints it, or as JSON
        exc = _with_suggestion(exc, parser, wanted)
        detail = exc.message
        if with_plugins and "invalid choice" in detail:  # an unknown command: which plugin failed
            detail += failure_note()
        if as_json:
            message = f"{exc.parser.prog}: {detail}"
            print_error(message, ExitCode.USAGE, kind="UsageError", as_json=True)
        else:
            exc.parser.print_usage(sys.stderr)
            print(f"{exc.parser.prog}: error: {detail}", file=sys.stderr)
        return int(ExitCode.USAGE)
    apply_native_options(args)
    try:
        return int(COMMAND_REGISTRY.get(args.command).run(args))
    except GroundkitError as exc:
        command = _subparser(parser, args.command) or parser
        say = _as_flags(command) if isinstance(exc, InvalidQueryError) else None
        return fail(exc, as_json=bool(getattr(args, "json", False)), say=say)
    except KeyboardInterrupt:
        print("groundkit: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout left (`| head`): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
