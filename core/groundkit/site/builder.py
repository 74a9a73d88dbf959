"""``groundkit build-site``: a folder, indexed, as a self-contained static search site.

The site's files are listed in ``groundkit.site.layout``. The collection is ingested into
SQLite first (as ``groundkit ingest`` does), every citation is verified against the copies, and
it is then exported to ``index/`` (ADR 0018); the SQLite file is not shipped. A collection
stores each document's absolute ``root``; the app maps every root to the site's ``sources/``
copy (``site.json`` ``sources.root``) and verifies against that copy.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from pathlib import Path

from groundkit.analysis.analyzer import Analyzer
from groundkit.collection import collection_file, open_reader
from groundkit.config import IngestSettings
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError, GroundkitError, IngestionError
from groundkit.ingestion import ingest as ingest_path
from groundkit.ingestion.indexer import ProgressCallback
from groundkit.retrieval.audit import verify_reader
from groundkit.site.first_answer import first_answer_refusal
from groundkit.site.js_capable import language_files
from groundkit.site.layout import (
    APP_DIR,
    APP_FILES,
    DEFAULT_PYODIDE_URL,
    LANGUAGES_DIR,
    PYODIDE_FILES,
    SITE_JSON,
    SiteReport,
    is_site,
)
from groundkit.site.memory_snapshot import (
    SNAPSHOT_FILE,
    STDLIB_ZIP,
    check_snapshot_tools,
    gzip_file,
    make_snapshot,
    strip_zero_runs,
    trim_stdlib,
)
from groundkit.site.page_files import (
    checked_origin,
    checked_pyodide_version,
    page_html,
    site_manifest,
    write_site_json,
)
from groundkit.site.precompress import check_precompress, precompress
from groundkit.site.semantic_assets import (
    SEMANTIC_DIR,
    check_semantic,
    precompressible,
    write_semantic,
)
from groundkit.site.source_links import LINKS_JSON, LinkSpec, write_links
from groundkit.site.target_folder import check_out, install, remove_stale_builds
from groundkit.site.wheel import build_wheel
from groundkit.source_files import read_bytes
from groundkit.store.static import FORMAT as STATIC_FORMAT
from groundkit.store.static_export import export_static

__all__ = ["build_site"]

SITE_SOURCES_ROOT = "sources/"
"""The document root a site records (site.json and its index): its own copies' folder, relative
to the site, rather than the builder's absolute path (issue 38.5)."""


def _tree_bytes(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file())


def _page_bundle(analyzer: Analyzer | None) -> tuple[str, ...]:
    """The pure-Python distributions the page needs inside the wheel: snowballstemmer for a
    collection stemmed in a language other than English (the core stems English itself). A
    snapshot leaves them out (importing its 36 stemmers would grow the heap past what a restore
    holds): a snapshot site installs the wheel before it opens the index."""
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
    notice: Callable[[str], None] | None = None,
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
    ``notice`` hears a line during long steps after the ingest (the snapshot's 100 s).
    """
    source = Path(path).resolve()
    target = Path(out).resolve()
    collection_file(".", collection)  # validates the name
    if not source.exists():
        raise ConfigurationError(f"{path}: no such file or folder", subject=str(path))
    check_out(source, target, force)
    if links is not None:
        links = links.with_sources(source if source.is_dir() else source.parent)
    pyodide_version = None if pyodide_dir is None else checked_pyodide_version(Path(pyodide_dir))
    if pyodide_url is not None:
        checked_origin(pyodide_url)  # refuse a bad URL before any work
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
    remove_stale_builds(target)
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
            notice=notice,
        )
        install(work, target, merge=force and not is_site(target))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.out = str(target)
    return report


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
    notice: Callable[[str], None] | None = None,
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
    if ingest.nothing_matched:  # an empty site would answer every search "no results"
        raise IngestionError(
            f"{ingest.nothing_matched_message()}; no site was written",
            subject=str(source),
            reason="nothing_matched",
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
        analyzer_identity = reader.analyzer_identity
        exported = export_static(reader, work / "index", sources_dir, root=SITE_SOURCES_ROOT)
        linked = write_links(work, links, documents.values(), reader.iter_chunks())
    shutil.rmtree(index_dir)
    verified = checked.verified
    failed = [check.reason for check in checked.failures] + list(checked.integrity_problems)
    if len(roots) > 1:  # one build-site ingests one path, so one root
        raise GroundkitError(f"expected one document root, found {sorted(roots)}")

    python_first = first_answer_refusal(analyzer_identity, dense=embedder is not None)
    # stored, not deflated, when the host compresses it: brotli then packs the whole wheel
    bundled = _page_bundle(analyzer)
    wheel = build_wheel(work, deflate=precompress_with is None, bundle=bundled)
    app = APP_DIR
    for name in APP_FILES:
        shutil.copyfile(app / name, work / name)
    (work / LANGUAGES_DIR).mkdir(exist_ok=True)
    for name in language_files(analyzer_identity):
        shutil.copyfile(app / LANGUAGES_DIR / name, work / LANGUAGES_DIR / name)
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
        modules = make_snapshot(pyodide_dir, wheel, snap, notice=notice)
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
            # the runtime is fetched after the first answer where the page's JS path gives it
            {"snapshot": f"pyodide/{snap.name}", "wasm": "pyodide/pyodide.asm.wasm"}
            if snapshot and python_first is not None
            else None,
        ),
        encoding="utf-8",
    )
    manifest = site_manifest(
        title=title,
        ui=ui,
        pyodide=pyodide,
        pyodide_version=pyodide_version,
        snapshot=f"pyodide/{snap.name}" if snapshot else None,
        stdlib_modules=stdlib_modules,
        wheel=wheel.name,
        bundled=bundled,
        collection={
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
        semantic=semantic,
        links=linked,
        first_answer=python_first is None,
        sources_root=SITE_SOURCES_ROOT,
        sources=sorted(d.source for d in documents.values()),
    )
    write_site_json(work, manifest)
    sources_bytes = _tree_bytes(sources_dir) if sources_dir.exists() else 0
    semantic_bytes = _tree_bytes(work / SEMANTIC_DIR) if semantic else None
    if precompress_with is not None:  # all but index/, whose files are deflated inside
        top = [work / name for name in (*APP_FILES, SITE_JSON)] + [wheel]
        top += [work / LINKS_JSON] if linked else []
        files = [
            p for d in ("pyodide", "sources", LANGUAGES_DIR) for p in sorted((work / d).rglob("*"))
        ]
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
        python_first=python_first,
    )
