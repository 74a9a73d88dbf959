"""``groundkit build-site``: a folder, indexed, as a self-contained static search site.

This package only re-exports the builder's public names, each imported on first use (as
``groundkit`` does, adr/0047), so the CLI can name ``--url-rule``'s choices without importing
the builder. Its parts: ``builder`` (``build_site``, ``SiteOptions``), ``layout`` (the site's
files and ``SiteReport``), ``target_folder`` (``-o`` and the swap into place), ``page_files``
(``index.html`` and ``site.json``), ``site_reader`` (``open_site``), ``wheel``,
``memory_snapshot`` (``--snapshot``), ``semantic_assets`` (``--ort-dir``), ``source_links``
(``--base-url``), ``precompress`` (``--precompress``) and the browser app, ``web_app/``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from groundkit.lazy import lazy_exports as _lazy_exports

if TYPE_CHECKING:
    from groundkit.site.builder import SiteOptions, build_site
    from groundkit.site.layout import DEFAULT_PYODIDE_URL, PYODIDE_FILES, SITE_FORMAT, SiteReport
    from groundkit.site.site_reader import open_site
    from groundkit.site.wheel import build_wheel

__all__ = [
    "DEFAULT_PYODIDE_URL",
    "PYODIDE_FILES",
    "SITE_FORMAT",
    "SiteOptions",
    "SiteReport",
    "build_site",
    "build_wheel",
    "open_site",
]

_HOMES: dict[str, tuple[str, ...]] = {
    "groundkit.site.builder": ("SiteOptions", "build_site"),
    "groundkit.site.layout": ("DEFAULT_PYODIDE_URL", "PYODIDE_FILES", "SITE_FORMAT", "SiteReport"),
    "groundkit.site.site_reader": ("open_site",),
    "groundkit.site.wheel": ("build_wheel",),
}
"""The module each public name comes from."""

if not TYPE_CHECKING:  # mypy sees the imports above, not a module that answers any name
    __getattr__, __dir__ = _lazy_exports(__name__, _HOMES, __all__)
