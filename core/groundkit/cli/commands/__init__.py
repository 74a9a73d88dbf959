"""One module per command, each an ``add_parser(commands, parents)`` and a ``run(args)``."""

from __future__ import annotations

from groundkit.cli.commands import (
    build_site,
    calibrate,
    check,
    evaluate,
    ingest,
    search,
    serve,
    shard,
    status,
    verify,
)

__all__ = ["COMMANDS"]

COMMANDS = (ingest, search, verify, check, evaluate, calibrate, status, build_site, serve, shard)
"""The commands in the order ``--help`` lists them."""
