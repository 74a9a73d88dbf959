"""``groundkit verify``: ``groundkit.verify_collection()``, summarised."""

from __future__ import annotations

import argparse
import re
from collections import Counter
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents
from groundkit.cli.render import emit_json
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_INDEX_DIR
from groundkit.retrieval.audit import CollectionVerification, verify_collection
from groundkit.retrieval.citations import Verification

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
        print(failures_text(outcome, args), end="")
        for problem in outcome.integrity_problems:
            print(f"  index problem: {problem}")
    return ExitCode.OK if outcome.ok else ExitCode.NOT_VERIFIED


REASONS_SHOWN = 3
"""Distinct reasons listed under one file (``--json`` lists every failed citation)."""


def _reason(check: Verification) -> str:
    """A failure's reason without its leading ``source [start:end]:`` (the file is named once)."""
    where = rf"^{re.escape(check.citation.source)} \[\d+:\d+\]: "
    return re.sub(where, "", check.reason, count=1)


def failures_text(outcome: CollectionVerification, args: argparse.Namespace) -> str:
    """The failed citations grouped by source file: one line per file with its counts by
    verdict and distinct reasons, then the command that re-reads it (``--json`` lists each)."""
    by_source: dict[str, list[Verification]] = {}
    for check in outcome.failures:
        by_source.setdefault(check.citation.source, []).append(check)
    lines = []
    for source in sorted(by_source):
        checks = by_source[source]
        verdicts = Counter(check.verdict for check in checks)
        counts = ", ".join(f"{n} {verdict}" for verdict, n in sorted(verdicts.items()))
        lines.append(f"  {source}: {counts} citation{'s' * (len(checks) != 1)}")
        reasons = list(dict.fromkeys(_reason(check) for check in checks))
        lines.extend(f"    {reason}" for reason in reasons[:REASONS_SHOWN])
        if len(reasons) > REASONS_SHOWN:
            lines.append(f"    ... and {len(reasons) - REASONS_SHOWN} more (--json lists each)")
    if lines:
        target = "" if args.collection == DEFAULT_COLLECTION else f" --collection {args.collection}"
        if args.index_dir != DEFAULT_INDEX_DIR:
            target += f" --index-dir {args.index_dir}"
        lines.append(
            "  re-ingest the folder they came from to re-read them: "
            f"`groundkit ingest PATH{target}` (a deleted file is then removed from the collection)"
        )
    return "".join(f"{line}\n" for line in lines)
