"""``groundkit status``: what a collection holds."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json, print_table
from groundkit.collection import collection_status

NAME = "status"


def add_parser(commands: Any, parents: Parents) -> None:
    commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output],
        help="show what a collection holds",
        description="Documents, chunks, schema version, analyzer, generation and size on disk.",
    )


def run(args: argparse.Namespace) -> ExitCode:
    status = collection_status(args.index_dir, args.collection)
    if args.json:
        emit_json(status)
    else:
        print_table(status)
    return ExitCode.OK
