"""The serve extra's plugin: the ``groundkit serve`` command.

The entry point ``serve`` of the group ``groundkit.plugins`` (adr/0053). Registering imports
nothing: the command's parser is built by ``serve_command`` when ``groundkit serve`` (or the
top-level help) is asked for, and the service's packages are imported when it runs.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from groundkit.extend import Parents, PluginRegistry

__all__ = ["register"]


def _add_parser(commands: Any, parents: Parents) -> None:
    from groundkit_serve.serve_command import add_parser

    add_parser(commands, parents)


def _run(args: argparse.Namespace) -> int:
    from groundkit_serve.serve_command import run

    return run(args)


def register(registry: PluginRegistry) -> None:
    """Add ``groundkit serve`` to ``registry``."""
    registry.cli_command("serve", _add_parser, _run)
