"""``groundkit remove PATH|URL``: ``groundkit.remove_sources()``."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json

NAME = "remove"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output],
        help="remove the documents at or under a path or URL",
        description=(
            "Remove every document at or under PATH (a root, a folder inside one, or one file) "
            "or URL from the collection; the files need not exist any more. Exits 4 when "
            "nothing matches (`groundkit sources` lists the roots)."
        ),
        epilog="example:\n  groundkit remove ~/old-docs",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("target", metavar="PATH|URL", help="what to remove")


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.ingestion.manage import remove_sources  # imported by this command only

    report = remove_sources(args.target, index_dir=args.index_dir, collection=args.collection)
    if args.json:
        emit_json(report.to_dict())
    else:
        print(report.summary())
    return ExitCode.OK
