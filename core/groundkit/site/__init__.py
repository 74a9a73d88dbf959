"""``groundkit build-site``: a folder, indexed, as a self-contained static search site.

This package only re-exports the builder's public names, each imported on first use (as
``groundkit`` does, adr/0047), so the CLI can name ``--url-rule``'s choices without importing
the builder. Its parts: ``builder`` (``build_site``), ``layout`` (the site's files and
``SiteReport``), ``target_folder`` (``-o`` and the swap into place), ``page_files``
(``index.html`` and ``site.json``), ``site_reader`` (``open_site``), ``wheel``,
``memory_snapshot`` (``--snapshot``), ``semantic_assets`` (``--ort-dir``), ``source_links``
(``--base-url``), ``precompress`` (``--precompress``) and the browser app, ``web_app/``.
"""

from __future__ import annotations

from importlib import import_module as _import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from groundkit.site.builder import build_site
    from groundkit.site.layout import DEFAULT_PYODIDE_URL, PYODIDE_FILES, SITE_FORMAT, SiteReport
    from groundkit.site.site_reader import open_site
    from groundkit.site.wheel import build_wheel

__all__ = [
    "DEFAULT_PYODIDE_URL",
    "PYODIDE_FILES",
    "SITE_FORMAT",
    "SiteReport",
    "build_site",
    "build_wheel",
    "open_site",
]

_HOME = {
    "DEFAULT_PYODIDE_URL": "groundkit.site.layout",
    "PYODIDE_FILES": "groundkit.site.layout",
    "SITE_FORMAT": "groundkit.site.layout",
    "SiteReport": "groundkit.site.layout",
    "build_site": "groundkit.site.builder",
    "build_wheel": "groundkit.site.wheel",
    "open_site": "groundkit.site.site_reader",
}
"""The module each public name comes from."""

if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name

    def __getattr__(name: str) -> object:
        """Import a public name on first use, then keep it here."""
        module = _HOME.get(name)
        if module is None:
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        value = getattr(_import_module(module), name)
        globals()[name] = value
        return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
