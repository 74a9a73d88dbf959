"""``groundkit relocate OLD NEW``: ``groundkit.relocate_sources()``."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json

NAME = "relocate"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output],
        help="re-root documents after their folder moved (content checked first)",
        description=(
            "Give the documents under OLD the root NEW, after checking that each one reads "
            "(and extracts) to the text it was ingested with under NEW; otherwise nothing "
            "changes, the files that differ are named, and the exit status is 4. Ids, chunks "
            "and vectors are kept, and citations verify against NEW."
        ),
        epilog="example:\n  mv docs docs2 && groundkit relocate docs docs2",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("old", metavar="OLD", help="the root as ingested (it may be gone)")
    parser.add_argument("new", metavar="NEW", help="the folder it lives in now")


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.ingestion.manage import relocate_sources  # imported by this command only

    report = relocate_sources(
        args.old, args.new, index_dir=args.index_dir, collection=args.collection
    )
    if args.json:
        emit_json(report.to_dict())
    else:
        print(report.summary())
    return ExitCode.OK
