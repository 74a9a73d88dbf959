"""The files that tell the page what to load: ``index.html`` and ``site.json``.

``index.html`` is the app's own, with the runtime's origin added to its Content-Security-Policy
and preloads for a ``--snapshot`` site; ``site.json`` names the runtime, the wheel, the
collection's static files and the sources (``site_manifest``). The Pyodide a build copies or
names is checked here before any work.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from groundkit.config import VERSION
from groundkit.errors import ConfigurationError
from groundkit.site.layout import (
    PYODIDE_FILES,
    PYODIDE_VERSION,
    SITE_FORMAT,
    SITE_JSON,
    SITE_SOURCES_ROOT,
)

__all__ = [
    "PageRuntime",
    "checked_origin",
    "checked_pyodide_version",
    "page_html",
    "site_manifest",
    "write_site_json",
]

_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


@dataclass(frozen=True, slots=True)
class PageRuntime:
    """Where the page's Python comes from, as ``site.json`` names it."""

    url: str
    """The Pyodide runtime's folder: ``pyodide/`` (copied into the site) or a URL."""
    version: str | None
    """The copied runtime's version (None: the version the page pins)."""
    snapshot: str | None
    """The memory snapshot's path in the site (None: no snapshot)."""
    stdlib_modules: int | None
    """The standard-library modules a snapshot site ships (None: all of them)."""
    wheel: str
    """The groundkit wheel's file name."""
    bundled: tuple[str, ...]
    """The pure-Python distributions the wheel carries beside groundkit."""


def checked_pyodide_version(pyodide_dir: Path) -> str:
    """The version of the Pyodide npm package at ``pyodide_dir``, refused unless it holds
    every file the page loads and is 314 or later (sqlite3 in its standard library)."""
    missing = [name for name in PYODIDE_FILES if not (pyodide_dir / name).is_file()]
    if missing:
        raise ConfigurationError(
            f"--pyodide-dir {pyodide_dir}: lacks {', '.join(missing)}; give the folder of the "
            f"npm package (node_modules/pyodide, version {PYODIDE_VERSION})",
            subject=str(pyodide_dir),
        )
    try:
        version = str(json.loads((pyodide_dir / "package.json").read_text("utf-8"))["version"])
    except (OSError, ValueError, KeyError) as exc:
        raise ConfigurationError(
            f"--pyodide-dir {pyodide_dir}: unreadable package.json ({exc})",
            subject=str(pyodide_dir),
        ) from exc
    if int(version.split(".", maxsplit=1)[0]) < 314:
        raise ConfigurationError(
            f"--pyodide-dir {pyodide_dir}: Pyodide {version} keeps sqlite3 out of its standard "
            "library; 314 or later is needed (docs: how-to/browser-site)",
            subject=str(pyodide_dir),
        )
    return version


def page_html(html: str, pyodide_url: str, early: dict[str, str] | None = None) -> str:
    """``index.html`` with the runtime's origin added to its Content-Security-Policy.

    The page allows only its own origin; a runtime the build names on another origin (a CDN)
    is added to ``script-src`` and ``connect-src``, and nothing else ever is (ADR 0018).
    ``early`` (name -> a path in the site) become preloads that app.js fetches for the worker
    before the worker asks (a ``--snapshot`` site's snapshot and wasm, ADR 0033).
    """
    for name, path in (early or {}).items():
        link = f'<link rel="preload" href="{path}" as="fetch" crossorigin data-runtime="{name}">\n'
        html = html.replace("</head>", link + "</head>", 1)
    origin = checked_origin(pyodide_url)
    if origin is None:
        return html
    for directive in ("script-src", "connect-src"):
        html = html.replace(f"{directive} 'self';", f"{directive} 'self' {origin};", 1)
    return html


def checked_origin(url: str) -> str | None:
    """The origin of a runtime URL (None for a path relative to the site); a
    ``ConfigurationError`` for anything but an http(s) URL with a plain host."""
    parts = urlsplit(url)
    if not parts.scheme and not parts.netloc:
        return None  # a path relative to the site: same origin
    host_ok = bool(parts.netloc) and _HOST.fullmatch(parts.netloc) is not None
    if parts.scheme not in ("https", "http") or not host_ok:
        raise ConfigurationError(
            f"--pyodide-url {url}: give an http(s) URL or a path relative to the site",
            subject=url,
        )
    return f"{parts.scheme}://{parts.netloc}"


def site_manifest(
    *,
    title: str,
    ui: dict[str, bool],
    runtime: PageRuntime,
    collection: dict[str, Any],
    semantic: dict[str, Any] | None,
    links: dict[str, Any] | None,
    first_answer: bool,
    sources: list[str],
) -> dict[str, Any]:
    """``site.json``: what the app loads, and from where. ``wheel_bundles``: the packages the
    wheel carries beside groundkit (a snapshot site installs it before opening the index).
    ``first_answer``: the page's JS path answers before Python starts (adr/0062)."""
    return {
        "format": SITE_FORMAT,
        "generator": f"groundkit build-site {VERSION}",
        "title": title,
        "ui": ui,
        "pyodide": {
            "url": runtime.url,
            "version": runtime.version or PYODIDE_VERSION,
            "snapshot": runtime.snapshot,
            "stdlib_modules": runtime.stdlib_modules,
        },
        "wheel": runtime.wheel,
        "wheel_bundles": list(runtime.bundled),
        "collection": collection,
        "semantic": semantic,
        "links": links,
        "first_answer": first_answer,
        "sources": {"url": "sources/", "root": SITE_SOURCES_ROOT, "files": sources},
    }


def write_site_json(work: Path, manifest: dict[str, Any]) -> None:
    (work / SITE_JSON).write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
