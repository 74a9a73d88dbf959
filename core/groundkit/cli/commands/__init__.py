"""One module per command, each an ``add_parser(commands, parents)`` and a ``run(args)``.

Plugins add theirs (``serve``) through ``PluginRegistry.cli_command`` (adr/0053).
"""

from __future__ import annotations

from groundkit.cli.commands import (
    build_site,
    calibrate,
    check,
    evaluate,
    ingest,
    relocate,
    remove,
    search,
    shard,
    sources,
    status,
    verify,
)

__all__ = ["COMMANDS"]

COMMANDS = (
    ingest,
    search,
    verify,
    check,
    evaluate,
    calibrate,
    status,
    sources,
    remove,
    relocate,
    build_site,
    shard,
)
"""The commands in the order ``--help`` lists them."""
