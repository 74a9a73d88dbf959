"""Packages that re-export names imported on first use (adr/0047), so importing them stays
cheap: one mechanism for ``groundkit``, ``groundkit.extend``, ``groundkit.site`` and the extras.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping, Sequence
from importlib import import_module
from importlib.util import find_spec

__all__ = ["lazy_exports"]


def lazy_exports(
    package: str,
    homes: Mapping[str, Sequence[str]],
    exported: Sequence[str],
    *,
    subpackages: bool = False,
) -> tuple[Callable[[str], object], Callable[[], list[str]]]:
    """``__getattr__`` and ``__dir__`` for ``package``: each name of ``homes`` (module ->
    names) is imported from its module on first use and then kept in the package; with
    ``subpackages``, another public name that is a subpackage is imported as when everything
    was imported eagerly."""
    home = {name: module for module, names in homes.items() for name in names}

    def attribute(name: str) -> object:
        module = home.get(name)
        if module is not None:
            value = getattr(import_module(module), name)
        elif subpackages and not name.startswith("_") and find_spec(f"{package}.{name}"):
            value = import_module(f"{package}.{name}")
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)
        return value

    def listing() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(exported))

    return attribute, listing
