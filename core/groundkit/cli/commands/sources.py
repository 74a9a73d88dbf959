"""``groundkit sources``: ``groundkit.list_sources()``, one line per root."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json

NAME = "sources"


def add_parser(commands: Any, parents: Parents) -> None:
    commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output],
        help="list a collection's roots (folders, URLs) with document counts",
        description=(
            "Each root (the absolute folder or URL a document was ingested from) with its "
            "documents by source class. `groundkit remove` and `groundkit relocate` take these."
        ),
    )


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.ingestion.manage import list_sources  # imported by this command only

    roots = list_sources(args.index_dir, args.collection)
    if args.json:
        emit_json([root.to_dict() for root in roots])
    elif not roots:
        print(f"collection {args.collection!r} holds no documents")
    else:
        width = max(len(str(root.documents)) for root in roots)
        for root in roots:
            classes = ", ".join(f"{name} {count}" for name, count in root.classes.items())
            print(f"{root.documents:>{width}}  {root.root}  ({classes})")
    return ExitCode.OK
