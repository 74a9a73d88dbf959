"""What a built site is: its top-level files, the Pyodide it loads, and ``SiteReport``.

The site (ADR 0011) is plain files that any static host can serve::

    index.html app.js offsets.js style.css   the app (package data: groundkit/site/web_app)
    site.json                                what the app loads (``page_files.site_manifest``)
    groundkit-<version>-py3-none-any.whl     the core, zipped from the installed package
    index/                                   the collection as small static files, fetched
                                             per query (``groundkit.store.static``)
    sources/<source>                         each document's file, for highlighting and verify
    pyodide/                                 the Pyodide runtime (only with ``pyodide_dir``)
    semantic/                                model, tokenizer and onnxruntime-web, for the
                                             page's semantic search (only with ``ort_dir``)
    links.json                               each source's rendered page (only with ``links``)
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from groundkit.ingestion.report import IngestReport
from groundkit.site.semantic_assets import SEMANTIC_DIR
from groundkit.site.source_links import LINKS_JSON

__all__ = [
    "APP_DIR",
    "APP_FILES",
    "DEFAULT_PYODIDE_URL",
    "LANGUAGES_DIR",
    "PYODIDE_FILES",
    "PYODIDE_VERSION",
    "SITE_FORMAT",
    "SITE_JSON",
    "SITE_SOURCES_ROOT",
    "SiteReport",
    "is_site",
    "site_entry",
]

SITE_FORMAT = 1
PYODIDE_VERSION = "314.0.8"
DEFAULT_PYODIDE_URL = f"https://cdn.jsdelivr.net/npm/pyodide@{PYODIDE_VERSION}/"
# What loadPyodide() fetches from its indexURL when no package is loaded.
PYODIDE_FILES = (
    "package.json",
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
APP_DIR = Path(__file__).resolve().parent / "web_app"
"""The browser app, package data copied into every site (and left out of its wheel)."""
APP_FILES = (
    "index.html",
    "embed.html",
    "app.js",
    "worker.js",
    "semantic.js",
    "offsets.js",
    "first_answer.js",
    "analysis.js",
    "porter.js",
    "tables.js",
    "style.css",
    "theme.css",
)
LANGUAGES_DIR = "languages"
"""analysis.js's stemmers and stop words (adr/0054): a site carries those its analyzer names."""
SITE_JSON = "site.json"
SITE_SOURCES_ROOT = "sources/"
"""The document root a site records (site.json and its index): its own copies' folder, relative
to the site, rather than the builder's absolute path (issue 38.5)."""
_SITE_ENTRIES = frozenset(
    (
        *APP_FILES,
        SITE_JSON,
        LINKS_JSON,
        LANGUAGES_DIR,
        "index",
        "collection",
        "sources",
        "pyodide",
        SEMANTIC_DIR,
    )
)
"""What a site writes at its top level ('collection': sites of before ADR 0018)."""


@dataclass
class SiteReport:
    """What ``build_site`` wrote."""

    out: str
    """The site's folder."""
    ingest: IngestReport
    """What the ingest read, indexed and refused."""
    wheel: str
    """The groundkit wheel's file name."""
    wheel_bytes: int
    """Its size in bytes."""
    collection_bytes: int
    """The size in bytes of the collection's static files (``index/``)."""
    sources: int
    """Source files copied into ``sources/``."""
    sources_bytes: int
    """Their size in bytes."""
    citations_verified: int
    """Citations verified against the site's copies."""
    citations_failed: list[str] = field(default_factory=list)
    """Why each other citation failed (the build exits 5 if any did)."""
    pyodide: str = DEFAULT_PYODIDE_URL
    """Where the page loads Pyodide from."""
    pyodide_copied: bool = False
    """Whether the runtime was copied into the site (``pyodide_dir``)."""
    snapshot_bytes: int | None = None
    """The memory snapshot's size in bytes (None: no snapshot)."""
    semantic_bytes: int | None = None
    """The size in bytes of the semantic search's files (None: none shipped)."""
    precompressed: str | None = None
    """'gzip' or 'brotli' where siblings were written (None: none)."""
    links: int | None = None
    """Sources linked to a rendered page (None: no ``links``)."""
    python_first: str | None = None
    """Why the page waits for Python before its first answer (None: the JS path answers)."""
    lexical_bar: dict[str, Any] | None = None
    """bm25's "nothing here" bar the site ships (``LexicalBar.to_dict()``: the share, whether
    it separates and so is applied, what was measured); None: not calibrated (adr/0069)."""
    dense_floor: dict[str, Any] | None = None
    """The dense floor and hybrid's share the site ships (``FloorRecord.to_dict()``); None:
    no semantic vectors, or not calibrated (the embedder's floor applies; adr/0070)."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "ingest": self.ingest.to_dict(),
            "wheel": self.wheel,
            "wheel_bytes": self.wheel_bytes,
            "collection_bytes": self.collection_bytes,
            "sources": self.sources,
            "sources_bytes": self.sources_bytes,
            "citations_verified": self.citations_verified,
            "citations_failed": self.citations_failed,
            "pyodide": self.pyodide,
            "pyodide_copied": self.pyodide_copied,
            "snapshot_bytes": self.snapshot_bytes,
            "semantic_bytes": self.semantic_bytes,
            "precompressed": self.precompressed,
            "links": self.links,
            "python_first": self.python_first,
            "lexical_bar": self.lexical_bar,
            "dense_floor": self.dense_floor,
        }


def is_site(path: Path) -> bool:
    """Whether ``path`` holds a site that ``build-site`` wrote (its ``site.json`` says so)."""
    try:
        data = json.loads((path / SITE_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("generator", "").startswith("groundkit build-site")


def site_entry(name: str) -> bool:
    """Whether ``name`` is one a site writes at its top level (so a rebuild may replace it)."""
    if name.endswith((".gz", ".br")):  # a pre-compressed sibling (--precompress)
        name = name[:-3]
    return name in _SITE_ENTRIES or (name.startswith("groundkit-") and name.endswith(".whl"))
