"""The ``groundkit`` command: a thin shell over the library API (every flag is a parameter).

``app`` builds the parser from one module per command (``commands/``), the shared options live
in ``options``, exit codes in ``exits`` and everything printed in ``render``.
"""

from __future__ import annotations

from groundkit.cli.app import main
from groundkit.cli.exits import ExitCode

__all__ = ["ExitCode", "main"]
