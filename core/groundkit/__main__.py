"""``python -m groundkit``: the same CLI as the ``groundkit`` command."""

from groundkit.cli import main

if __name__ == "__main__":  # importing this module (a module walk, say) runs nothing
    raise SystemExit(main())
