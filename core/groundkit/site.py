"""``groundkit build-site``: a folder, indexed, as a self-contained static search site.

The site (ADR 0011) is plain files that any static host can serve::

    index.html app.js offsets.js style.css   the app (package data: groundkit/web_app)
    site.json                                what the app loads, written here
    groundkit-<version>-py3-none-any.whl     the core, zipped from the installed package
    index/                                   the collection as small static files, fetched
                                             per query (``groundkit.store.static``)
    sources/<source>                         each document's file, for highlighting and verify
    pyodide/                                 the Pyodide runtime (only with ``pyodide_dir``)
    semantic/                                model, tokenizer and onnxruntime-web, for the
                                             page's semantic search (only with ``ort_dir``)
    links.json                               each source's rendered page (only with ``links``)

The collection is ingested into SQLite first (as ``groundkit ingest`` does), every citation is
verified against the copies, and it is then exported to ``index/`` (ADR 0018); the SQLite file
is not shipped. A collection stores each document's absolute ``root``; the app maps every root
to the site's ``sources/`` copy (``site.json`` ``sources.root``) and verifies against that copy.
"""

from __future__ import annotations

import glob
import json
import os
import re
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from groundkit.analysis.analyzer import Analyzer
from groundkit.collection import collection_file, open_reader
from groundkit.config import VERSION, IngestSettings
from groundkit.embedding.base import Embedder
from groundkit.errors import ConfigurationError, GroundkitError
from groundkit.ingest import IngestReport
from groundkit.ingest import ingest as ingest_path
from groundkit.ingest.indexer import ProgressCallback
from groundkit.precompress import check_precompress, precompress
from groundkit.retrieval import Retriever
from groundkit.retrieval.audit import verify_reader
from groundkit.site_runtime import (
    SNAPSHOT_FILE,
    STDLIB_ZIP,
    check_snapshot_tools,
    gzip_file,
    make_snapshot,
    strip_zero_runs,
    trim_stdlib,
)
from groundkit.site_semantic import (
    SEMANTIC_DIR,
    check_semantic,
    precompressible,
    write_semantic,
)
from groundkit.site_urls import LINKS_JSON, LinkSpec, write_links
from groundkit.sources import contained_path, read_bytes
from groundkit.store.static import FORMAT as STATIC_FORMAT
from groundkit.store.static import StaticReader
from groundkit.store.static_export import export_static
from groundkit.wheel import build_wheel, package_dir

__all__ = [
    "DEFAULT_PYODIDE_URL",
    "PYODIDE_FILES",
    "SITE_FORMAT",
    "SiteReport",
    "build_site",
    "build_wheel",
    "open_site",
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
APP_FILES = (
    "index.html",
    "embed.html",
    "app.js",
    "worker.js",
    "semantic.js",
    "offsets.js",
    "style.css",
    "theme.css",
)
SITE_JSON = "site.json"
_SITE_ENTRIES = frozenset(
    (*APP_FILES, SITE_JSON, LINKS_JSON, "index", "collection", "sources", "pyodide", SEMANTIC_DIR)
)
"""What a site writes at its top level ('collection': sites of before ADR 0018)."""
# Parts of the package the browser never needs: the app itself and the sample corpus.
_HOST = re.compile(r"[A-Za-z0-9.\-]+(:[0-9]{1,5})?|\[[0-9A-Fa-f:.]+\](:[0-9]{1,5})?")


@dataclass
class SiteReport:
    """What ``build_site`` wrote."""

    out: str
    ingest: IngestReport
    wheel: str
    wheel_bytes: int
    collection_bytes: int
    sources: int
    sources_bytes: int
    citations_verified: int
    citations_failed: list[str] = field(default_factory=list)
    pyodide: str = DEFAULT_PYODIDE_URL
    pyodide_copied: bool = False
    snapshot_bytes: int | None = None
    semantic_bytes: int | None = None
    precompressed: str | None = None
    links: int | None = None  # sources linked to a rendered page (with ``links``)

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
        }


def open_site(site: str | Path) -> Retriever:
    """A retriever over a built site's ``index/``, as the page searches it (files on disk)."""
    root = Path(site)
    reader = StaticReader(
        lambda path: contained_path(root, path).read_bytes(), index="index/", location=str(root)
    )
    return Retriever(reader)


def _is_site(path: Path) -> bool:
    try:
        data = json.loads((path / SITE_JSON).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return isinstance(data, dict) and data.get("generator", "").startswith("groundkit build-site")


def _check_out(source: Path, out: Path, force: bool) -> None:
    if out.exists() and not out.is_dir():
        raise ConfigurationError(f"-o {out}: exists and is not a folder", subject=str(out))
    if out == source or out.is_relative_to(source) or source.is_relative_to(out):
        raise ConfigurationError(
            f"-o {out}: must not contain or lie inside the ingested path {source}; "
            "write the site somewhere else",
            subject=str(out),
        )
    if out.is_dir() and any(out.iterdir()) and not _is_site(out):
        if not force:
            raise ConfigurationError(
                f"-o {out}: is a non-empty folder that is not a groundkit site; choose an empty "
                "or new folder, or pass --force to write the site's files into it",
                subject=str(out),
            )
        _refuse_clashes(out)


def _site_entry(name: str) -> bool:
    """Whether ``name`` is one a site writes at its top level (so a rebuild may replace it)."""
    if name.endswith((".gz", ".br")):  # a pre-compressed sibling (--precompress)
        name = name[:-3]
    return name in _SITE_ENTRIES or (name.startswith("groundkit-") and name.endswith(".whl"))


def _refuse_clashes(out: Path) -> None:
    """--force writes beside a folder's files, never over them: refuse names a site uses."""
    clashes = sorted(entry.name for entry in out.iterdir() if _site_entry(entry.name))
    if clashes:
        raise ConfigurationError(
            f"-o {out}: --force writes the site beside this folder's files, but "
            f"{', '.join(clashes)} would be replaced; move them away or choose another folder",
            subject=str(out),
        )


def _remove_stale_builds(target: Path) -> None:
    """Remove the work folders of builds of ``target`` that were killed (their process gone).

    Work folders are named ``.<name>.building-<pid>-<random>`` (and ``.old-`` while an old
    site is swapped out); one whose process still runs is another build's, and is kept.
    """
    for prefix in (f".{target.name}.building-", f".{target.name}.old-"):
        for entry in target.parent.glob(f"{glob.escape(prefix)}*"):
            pid = entry.name[len(prefix) :].split("-", 1)[0]
            if entry.is_dir() and not entry.is_symlink() and not _running(pid):
                shutil.rmtree(entry, ignore_errors=True)


def _running(pid: str) -> bool:
    """Whether process ``pid`` (a decimal string) runs; False for a name that holds none."""
    if not pid.isdigit():
        return False
    if int(pid) == os.getpid():
        return True
    if os.name != "posix":  # no cheap check elsewhere: keep the folder
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except OSError:  # exists but is someone else's, or no way to ask: keep the folder
        return True
    return True


def _pyodide_version(pyodide_dir: Path) -> str:
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
    origin = _origin(pyodide_url)
    if origin is None:
        return html
    for directive in ("script-src", "connect-src"):
        html = html.replace(f"{directive} 'self';", f"{directive} 'self' {origin};", 1)
    return html


def _origin(url: str) -> str | None:
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


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _page_bundle(analyzer: Analyzer | None) -> tuple[str, ...]:
    """The pure-Python distributions the page needs inside the wheel: snowballstemmer for a
    collection stemmed in a language other than English (the core stems English itself)."""
    languages = analyzer.languages if analyzer is not None else ()
    return ("snowballstemmer",) if any(name != "english" for name in languages) else ()


def build_site(
    path: str | Path,
    out: str | Path,
    *,
    collection: str = "default",
    title: str | None = None,
    pyodide_url: str | None = None,
    pyodide_dir: str | Path | None = None,
    analyzer: Analyzer | None = None,
    settings: IngestSettings | None = None,
    embedder: Embedder | None = None,
    force: bool = False,
    snapshot: bool = False,
    ort_dir: str | Path | None = None,
    precompress_with: str | None = None,
    progress: ProgressCallback | None = None,
    debug_ui: bool = False,
    allow_local_files: bool = False,
    theme: str | Path | None = None,
    links: LinkSpec | None = None,
) -> SiteReport:
    """Ingest ``path`` and write a static search site into ``out`` (see the module docstring).

    ``out`` may be new, empty or an earlier site (replaced as a whole); any other non-empty
    folder is refused unless ``force`` (the site's files are then written into it).
    ``snapshot`` (needs ``pyodide_dir`` and Node.js) adds Pyodide's memory snapshot with
    groundkit imported, which the page restores instead of starting Python (ADR 0019).
    ``ort_dir`` (the npm package onnxruntime-web; needs an ONNX ``embedder``) ships the model,
    so a visitor can turn on semantic search, embedded in the page (ADR 0035).
    ``precompress_with`` ('gzip' or 'brotli') writes ``.gz`` (and ``.br``) siblings of the
    runtime and app files for hosts that serve them (ADR 0033).
    The page shows visitors a search box and results only: ``debug_ui`` adds the mode menu and
    each result's score, ``allow_local_files`` the panel that indexes a visitor's own files.
    ``title`` defaults to "Search". ``theme``: a CSS file shipped as ``theme.css``, loaded
    after the page's own, to set its custom properties (colours, marks).
    ``links`` (``LinkSpec.from_options``) links each result to its source's rendered page.
    """
    source = Path(path).resolve()
    target = Path(out).resolve()
    collection_file(".", collection)  # validates the name
    if not source.exists():
        raise ConfigurationError(f"{path}: no such file or folder", subject=str(path))
    _check_out(source, target, force)
    pyodide_version = None if pyodide_dir is None else _pyodide_version(Path(pyodide_dir))
    if pyodide_url is not None:
        _origin(pyodide_url)  # refuse a bad URL before any work
    if snapshot and pyodide_dir is None:
        raise ConfigurationError(
            "--snapshot needs --pyodide-dir: a snapshot fits one runtime build"
        )
    if snapshot:
        check_snapshot_tools()
    if ort_dir is not None:
        check_semantic(embedder, Path(ort_dir))
    check_precompress(precompress_with)
    if theme is not None and not Path(theme).is_file():
        raise ConfigurationError(f"--theme {theme}: no such CSS file", subject=str(theme))
    target.parent.mkdir(parents=True, exist_ok=True)
    _remove_stale_builds(target)
    work = Path(
        tempfile.mkdtemp(prefix=f".{target.name}.building-{os.getpid()}-", dir=target.parent)
    )
    work.chmod(0o755)  # mkdtemp makes it 0700; a static host must read it
    try:
        report = _write_site(
            source,
            work,
            collection=collection,
            title=title or "Search",
            ui={"debug": debug_ui, "local_files": allow_local_files},
            theme=None if theme is None else Path(theme),
            links=links,
            pyodide_url=pyodide_url,
            pyodide_dir=None if pyodide_dir is None else Path(pyodide_dir),
            pyodide_version=pyodide_version,
            analyzer=analyzer,
            settings=settings,
            embedder=embedder,
            snapshot=snapshot,
            ort_dir=None if ort_dir is None else Path(ort_dir),
            precompress_with=precompress_with,
            progress=progress,
        )
        _install(work, target, merge=force and not _is_site(target))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.out = str(target)
    return report


def _install(work: Path, target: Path, *, merge: bool) -> None:
    """Move the built site into ``target``: a new folder, or an old site swapped out whole;
    beside other files (``--force``, or a site sharing its folder) only the site's own
    top-level entries are written or replaced, and nothing else is touched."""
    if not target.exists():
        work.rename(target)
        return
    shared = merge or any(not _site_entry(entry.name) for entry in target.iterdir())
    if not shared:  # an earlier site and nothing else
        old = target.with_name(f".{target.name}.old-{work.name.rsplit('.building-', 1)[1]}")
        target.rename(old)
        work.rename(target)
        shutil.rmtree(old, ignore_errors=True)
        return
    if merge:
        _refuse_clashes(target)  # again: the folder may have changed during the build
    for entry in sorted(target.iterdir()):  # the earlier site's entries (a shared site)
        if _site_entry(entry.name):
            if entry.is_dir() and not entry.is_symlink():
                shutil.rmtree(entry)
            else:
                entry.unlink()
    for entry in sorted(work.iterdir()):
        shutil.move(str(entry), target / entry.name)


def _write_site(
    source: Path,
    work: Path,
    *,
    collection: str,
    title: str,
    pyodide_url: str | None,
    pyodide_dir: Path | None,
    pyodide_version: str | None,
    analyzer: Analyzer | None,
    settings: IngestSettings | None,
    embedder: Embedder | None,
    snapshot: bool,
    ort_dir: Path | None,
    precompress_with: str | None,
    progress: ProgressCallback | None,
    ui: dict[str, bool],
    theme: Path | None,
    links: LinkSpec | None = None,
) -> SiteReport:
    index_dir = work / ".collection"  # the SQLite collection: exported, then removed
    ingest = ingest_path(
        source,
        index_dir=index_dir,
        collection=collection,
        analyzer=analyzer,
        settings=settings,
        embedder=embedder,
        progress=progress,
    )

    sources_dir = work / "sources"
    roots: set[str] = set()
    with open_reader(index_dir, collection) as reader:
        documents = {d.document_id: d for d in reader.iter_documents()}
        for document in documents.values():
            roots.add(document.root)
            dest = sources_dir / document.source
            dest.parent.mkdir(parents=True, exist_ok=True)
            # read as ingest reads (no link followed): a file swapped since is refused, not shipped
            limit = (settings or IngestSettings()).max_file_bytes
            dest.write_bytes(read_bytes(Path(document.root), document.source, max_bytes=limit))
        checked = verify_reader(reader, root=sources_dir)
        status = reader.status()
        exported = export_static(reader, work / "index", sources_dir)
        linked = write_links(work, links, documents.values(), reader.iter_chunks())
    shutil.rmtree(index_dir)
    verified = checked.verified
    failed = [check.reason for check in checked.failures] + list(checked.integrity_problems)
    if len(roots) > 1:  # one build-site ingests one path, so one root
        raise GroundkitError(f"expected one document root, found {sorted(roots)}")

    # stored, not deflated, when the host compresses it: brotli then packs the whole wheel
    wheel = build_wheel(work, deflate=precompress_with is None, bundle=_page_bundle(analyzer))
    app = package_dir() / "web_app"
    for name in APP_FILES:
        shutil.copyfile(app / name, work / name)
    if theme is not None:  # before any precompression, so theme.css.gz is of this file
        shutil.copyfile(theme, work / "theme.css")
    if pyodide_dir is not None:
        (work / "pyodide").mkdir()
        for name in PYODIDE_FILES:
            shutil.copyfile(pyodide_dir / name, work / "pyodide" / name)
        pyodide = "pyodide/"
    else:
        pyodide = pyodide_url or DEFAULT_PYODIDE_URL
    semantic = None if ort_dir is None else write_semantic(embedder, ort_dir, work)
    snap = work / "pyodide" / SNAPSHOT_FILE
    stdlib_modules: int | None = None
    if snapshot and pyodide_dir is not None:
        modules = make_snapshot(pyodide_dir, wheel, snap)
        # what the restored worker can still import, traced; the rest of Python's stay unshipped
        trim_stdlib(pyodide_dir / STDLIB_ZIP, work / "pyodide" / STDLIB_ZIP, modules)
        stdlib_modules = len(modules)
        strip_zero_runs(snap)
        if precompress_with is None:  # no host compression to count on: the worker inflates it
            snap = gzip_file(snap)
    (work / "index.html").write_text(
        page_html(
            (app / "index.html").read_text("utf-8"),
            pyodide,
            {"snapshot": f"pyodide/{snap.name}", "wasm": "pyodide/pyodide.asm.wasm"}
            if snapshot
            else None,
        ),
        encoding="utf-8",
    )
    manifest = {
        "format": SITE_FORMAT,
        "generator": f"groundkit build-site {VERSION}",
        "title": title,
        "ui": ui,
        "pyodide": {
            "url": pyodide,
            "version": pyodide_version or PYODIDE_VERSION,
            "snapshot": f"pyodide/{snap.name}" if snapshot else None,
            "stdlib_modules": stdlib_modules,
        },
        "wheel": wheel.name,
        "collection": {
            "name": collection,
            "format": f"static-{STATIC_FORMAT}",
            "url": "index/",
            "bytes": exported.bytes,
            "files": exported.files,
            "shards": exported.shards,
            "documents": status.get("documents"),
            "chunks": status.get("chunks"),
            "embedder": embedder.identity.to_dict() if embedder is not None else None,
        },
        "semantic": semantic,
        "links": linked,
        "sources": {
            "url": "sources/",
            "root": next(iter(roots), str(source)),
            "files": sorted(d.source for d in documents.values()),
        },
    }
    (work / SITE_JSON).write_text(
        json.dumps(manifest, ensure_ascii=False, indent=2) + "\n", encoding="utf-8"
    )
    sources_bytes = _tree_bytes(sources_dir) if sources_dir.exists() else 0
    semantic_bytes = _tree_bytes(work / SEMANTIC_DIR) if semantic else None
    if precompress_with is not None:  # all but index/, whose files are deflated inside
        top = [work / name for name in (*APP_FILES, SITE_JSON)] + [wheel]
        top += [work / LINKS_JSON] if linked else []
        files = [p for d in ("pyodide", "sources") for p in sorted((work / d).rglob("*"))]
        files += precompressible(work) if semantic else []
        precompress([*top, *(p for p in files if p.is_file())], precompress_with)
    return SiteReport(
        out=str(work),
        ingest=ingest,
        wheel=wheel.name,
        wheel_bytes=wheel.stat().st_size,
        collection_bytes=exported.bytes,
        sources=len(documents),
        sources_bytes=sources_bytes,
        citations_verified=verified,
        citations_failed=failed,
        pyodide=pyodide,
        pyodide_copied=pyodide_dir is not None,
        snapshot_bytes=snap.stat().st_size if snapshot else None,
        semantic_bytes=semantic_bytes,
        precompressed=precompress_with,
        links=None if linked is None else linked["pages"],
    )
