"""``python -m groundkit``: the same CLI as the ``groundkit`` command."""

from groundkit.cli import main

raise SystemExit(main())
