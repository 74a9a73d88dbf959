"""``groundkit check``: ``groundkit.check_collection()``: is the collection file sound?"""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json
from groundkit.collection import check_collection

NAME = "check"


def add_parser(commands: Any, parents: Parents) -> None:
    commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output],
        help="check a collection file for damage (SQLite's integrity_check and groundkit's own)",
        description=(
            "Run SQLite's integrity_check on the collection file, then check that counters, "
            "documents, chunks, terms, postings and vectors agree (docs: "
            "explanation/reliability). Reads no source files (`groundkit verify` re-checks the "
            "citations). Exits 6 when anything is wrong."
        ),
        epilog="example:\n  groundkit check --collection handbook --json",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def run(args: argparse.Namespace) -> ExitCode:
    problems = check_collection(args.index_dir, args.collection)
    if args.json:
        emit_json({"collection": args.collection, "ok": not problems, "problems": problems})
    elif problems:
        print(f"collection {args.collection} is damaged: {len(problems)} problem(s)")
        for problem in problems:
            print(f"  {problem}")
        print("rebuild it by ingesting into a new collection, or restore a copy")
    else:
        print(f"collection {args.collection}: sound (SQLite integrity_check and consistency)")
    return ExitCode.OK if not problems else ExitCode.DAMAGED
