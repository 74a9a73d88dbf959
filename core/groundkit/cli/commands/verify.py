"""``groundkit verify``: ``groundkit.verify_collection()``, summarised."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json
from groundkit.retrieval.audit import verify_collection

NAME = "verify"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output],
        help="re-check every citation of a collection against its sources",
        description=(
            "Re-read each chunk's source and compare. Exits 5 when any citation is drifted or "
            "unresolvable, or when the index disagrees with the chunks."
        ),
    )
    parser.add_argument("--chunk-id", default=None, metavar="ID", help="check only this chunk")


def run(args: argparse.Namespace) -> ExitCode:
    outcome = verify_collection(args.index_dir, args.collection, chunk_id=args.chunk_id)
    if args.json:
        emit_json(outcome.to_dict())
    else:
        print(outcome.summary())
        for check in outcome.failures:
            print(f"  {check.verdict}: {check.reason}")
        for problem in outcome.integrity_problems:
            print(f"  index problem: {problem}")
    return ExitCode.OK if outcome.ok else ExitCode.NOT_VERIFIED
