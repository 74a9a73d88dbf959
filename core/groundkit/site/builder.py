"""``groundkit build-site``: a folder, indexed, as a self-contained static search site.

The site's files are listed in ``groundkit.site.layout``. The collection is ingested into
SQLite first (as ``groundkit ingest`` does), every citation is verified against the copies, and
it is then exported to ``index/`` (ADR 0018); the SQLite file is not shipped. A collection
stores each document's absolute ``root``; the app maps every root to the site's ``sources/``
copy (``site.json`` ``sources.root``) and verifies against that copy.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.collection import collection_file, open_reader
from groundkit.config import DEFAULT_COLLECTION, IngestSettings
from groundkit.contracts import Document
from groundkit.embedding.embedder import Embedder
from groundkit.errors import ConfigurationError, GroundkitError, IngestionError
from groundkit.ingestion import ingest as ingest_path
from groundkit.ingestion.indexer import ProgressCallback
from groundkit.ingestion.report import IngestReport
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
    SITE_SOURCES_ROOT,
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
    PageRuntime,
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
from groundkit.store.static_export import StaticExport, export_static
from groundkit.store.static_layout import FORMAT as STATIC_FORMAT

__all__ = ["SiteOptions", "build_site"]


@dataclass(frozen=True, slots=True)
class SiteOptions:
    """How ``build_site`` ingests, what the page shows and what the site ships; the defaults
    give the plain site of ``groundkit build-site PATH -o DIR``."""

    collection: str = DEFAULT_COLLECTION
    """The collection's name inside the site."""
    analyzer: Analyzer | None = None
    """How the documents are analyzed (None: English, Porter-stemmed)."""
    settings: IngestSettings | None = None
    """What the ingest reads and skips (None: the defaults)."""
    embedder: Embedder | None = None
    """Also store vectors, for dense and hybrid search in the page."""
    title: str | None = None
    """The page's title (None: "Search")."""
    theme: str | Path | None = None
    """A CSS file shipped as ``theme.css``, loaded after the page's own, to set its custom
    properties (colours, marks)."""
    links: LinkSpec | None = None
    """Link each result to its source's rendered page (``LinkSpec.from_options``)."""
    debug_ui: bool = False
    """Also show visitors the search-mode menu and each result's score (for the site's owner)."""
    allow_local_files: bool = False
    """Also offer visitors a panel that indexes their own files in the page."""
    pyodide_url: str | None = None
    """Where the page loads Pyodide from, absolute or relative to the site (None: the jsDelivr
    CDN copy); ``pyodide_dir`` wins over it."""
    pyodide_dir: str | Path | None = None
    """Copy the Pyodide runtime from this npm package folder into the site."""
    snapshot: bool = False
    """Also ship Pyodide's memory snapshot with groundkit imported, which the page restores
    instead of starting Python (needs ``pyodide_dir`` and Node.js; ADR 0019)."""
    ort_dir: str | Path | None = None
    """onnxruntime-web's npm package folder: ship it and the model (needs an ONNX
    ``embedder``), so a visitor can turn on semantic search in the page (ADR 0035)."""
    precompress_with: str | None = None
    """'gzip' or 'brotli': write ``.gz`` (and ``.br``) siblings of the runtime and app files,
    for hosts that serve them (ADR 0033)."""
    force: bool = False
    """Write into a non-empty folder that is not a site (the site's files beside its own)."""
    calibrate: bool = True
    """Fit bm25's "nothing here" bar on the collection's own pseudo queries (``groundkit
    calibrate --self``) and ship it, so the page abstains where the collection would; with a
    semantic ``embedder`` also the dense floor and hybrid's share (adr/0070). False: the page
    answers every query that shares a word with the collection, and dense and hybrid search
    use the embedder's own floor (adr/0069)."""


@dataclass(frozen=True, slots=True)
class _Collection:
    """What the ingest step leaves for the rest of the build."""

    ingest: IngestReport
    documents: Mapping[str, Document]
    verified: int
    failed: list[str]
    status: Mapping[str, Any]
    analyzer_identity: Mapping[str, Any] | None
    exported: StaticExport
    linked: dict[str, Any] | None
    lexical_bar: dict[str, Any] | None
    dense_floor: dict[str, Any] | None


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
    options: SiteOptions | None = None,
    *,
    progress: ProgressCallback | None = None,
    notice: Callable[[str], None] | None = None,
) -> SiteReport:
    """Ingest ``path`` and write a static search site into ``out`` (see the module docstring).

    ``out`` may be new, empty or an earlier site (replaced as a whole); any other non-empty
    folder is refused unless ``options.force`` (the site's files are then written into it).
    Every option is checked before any work. ``progress`` hears the ingest; ``notice`` hears a
    line during long steps after it (the snapshot's 100 s).
    """
    options = options or SiteOptions()
    source = Path(path).resolve()
    target = Path(out).resolve()
    collection_file(".", options.collection)  # validates the name
    if not source.exists():
        raise ConfigurationError(f"{path}: no such file or folder", subject=str(path))
    check_out(source, target, options.force)
    if options.links is not None:
        folder = source if source.is_dir() else source.parent
        options = dataclasses.replace(options, links=options.links.with_sources(folder))
    pyodide_version = _checked(options)
    target.parent.mkdir(parents=True, exist_ok=True)
    remove_stale_builds(target)
    work = Path(
        tempfile.mkdtemp(prefix=f".{target.name}.building-{os.getpid()}-", dir=target.parent)
    )
    work.chmod(0o755)  # mkdtemp makes it 0700; a static host must read it
    try:
        report = _write_site(
            source, work, options, pyodide_version, progress=progress, notice=notice
        )
        install(work, target, merge=options.force and not is_site(target))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report.out = str(target)
    return report


def _checked(options: SiteOptions) -> str | None:
    """Refuse a bad option before any work; the copied Pyodide's version, if one is."""
    pyodide_dir = options.pyodide_dir
    version = None if pyodide_dir is None else checked_pyodide_version(Path(pyodide_dir))
    if options.pyodide_url is not None:
        checked_origin(options.pyodide_url)
    if options.snapshot and pyodide_dir is None:
        raise ConfigurationError(
            "--snapshot needs --pyodide-dir: a snapshot fits one runtime build"
        )
    if options.snapshot:
        check_snapshot_tools()
    if options.ort_dir is not None:
        check_semantic(options.embedder, Path(options.ort_dir))
    check_precompress(options.precompress_with)
    theme = options.theme
    if theme is not None and not Path(theme).is_file():
        raise ConfigurationError(f"--theme {theme}: no such CSS file", subject=str(theme))
    return version


def _write_site(
    source: Path,
    work: Path,
    options: SiteOptions,
    pyodide_version: str | None,
    *,
    progress: ProgressCallback | None,
    notice: Callable[[str], None] | None,
) -> SiteReport:
    sources_dir = work / "sources"
    built = _ingest_and_export(source, work, options, progress)
    python_first = first_answer_refusal(built.analyzer_identity, dense=options.embedder is not None)
    # stored, not deflated, when the host compresses it: brotli then packs the whole wheel
    bundled = _page_bundle(options.analyzer)
    wheel = build_wheel(work, deflate=options.precompress_with is None, bundle=bundled)
    _copy_app(work, built.analyzer_identity, options.theme)
    ort_dir = options.ort_dir
    semantic = None if ort_dir is None else write_semantic(options.embedder, Path(ort_dir), work)
    runtime, snap = _ship_pyodide(work, options, wheel, pyodide_version, bundled, notice)
    (work / "index.html").write_text(
        page_html(
            (APP_DIR / "index.html").read_text("utf-8"),
            runtime.url,
            # the runtime is fetched after the first answer where the page's JS path gives it
            {"snapshot": f"pyodide/{snap.name}", "wasm": "pyodide/pyodide.asm.wasm"}
            if options.snapshot and python_first is not None
            else None,
        ),
        encoding="utf-8",
    )
    embedder = options.embedder
    manifest = site_manifest(
        title=options.title or "Search",
        ui={"debug": options.debug_ui, "local_files": options.allow_local_files},
        runtime=runtime,
        collection={
            "name": options.collection,
            "format": f"static-{STATIC_FORMAT}",
            "url": "index/",
            "bytes": built.exported.bytes,
            "files": built.exported.files,
            "shards": built.exported.shards,
            "documents": built.status.get("documents"),
            "chunks": built.status.get("chunks"),
            "embedder": embedder.identity.to_dict() if embedder is not None else None,
        },
        semantic=semantic,
        links=built.linked,
        first_answer=python_first is None,
        sources=sorted(d.source for d in built.documents.values()),
    )
    write_site_json(work, manifest)
    sources_bytes = _tree_bytes(sources_dir) if sources_dir.exists() else 0
    semantic_bytes = _tree_bytes(work / SEMANTIC_DIR) if semantic else None
    if options.precompress_with is not None:
        linked, semantic_files = built.linked is not None, semantic is not None
        _precompress_site(
            work, wheel, options.precompress_with, linked=linked, semantic=semantic_files
        )
    return SiteReport(
        out=str(work),
        ingest=built.ingest,
        wheel=wheel.name,
        wheel_bytes=wheel.stat().st_size,
        collection_bytes=built.exported.bytes,
        sources=len(built.documents),
        sources_bytes=sources_bytes,
        citations_verified=built.verified,
        citations_failed=built.failed,
        pyodide=runtime.url,
        pyodide_copied=options.pyodide_dir is not None,
        snapshot_bytes=snap.stat().st_size if options.snapshot else None,
        semantic_bytes=semantic_bytes,
        precompressed=options.precompress_with,
        links=None if built.linked is None else built.linked["pages"],
        python_first=python_first,
        lexical_bar=built.lexical_bar,
        dense_floor=built.dense_floor,
    )


def _ingest_and_export(
    source: Path, work: Path, options: SiteOptions, progress: ProgressCallback | None
) -> _Collection:
    """Ingest into a SQLite collection under ``work``, copy each source into ``sources/``,
    verify every citation against the copies, export ``index/`` and ``links.json``, and
    remove the SQLite collection."""
    index_dir = work / ".collection"  # the SQLite collection: exported, then removed
    ingest = ingest_path(
        source,
        index_dir=index_dir,
        collection=options.collection,
        analyzer=options.analyzer,
        settings=options.settings,
        embedder=options.embedder,
        progress=progress,
        calibrate=options.calibrate,
    )
    if ingest.nothing_matched:  # an empty site would answer every search "no results"
        raise IngestionError(
            f"{ingest.nothing_matched_message()}; no site was written",
            subject=str(source),
            reason="nothing_matched",
        )
    if not ingest.created:  # every file refused: the ingest kept no collection
        reasons = ", ".join(sorted({refusal.reason for refusal in ingest.refused}))
        raise IngestionError(
            f"nothing was stored from {source}: {len(ingest.refused)} file(s) refused "
            f"({reasons}; `groundkit ingest` lists each with its fix); no site was written",
            subject=str(source),
            reason="nothing_stored",
        )
    # the ingest's self-calibration (adr/0072), shipped as fitted (adr/0069, adr/0070)
    fitted = ingest.calibration or {}
    bar, floor = fitted.get("bm25"), fitted.get("hybrid")
    sources_dir = work / "sources"
    roots: set[str] = set()
    with open_reader(index_dir, options.collection) as reader:
        documents = {d.document_id: d for d in reader.iter_documents()}
        for document in documents.values():
            roots.add(document.root)
            dest = sources_dir / document.source
            dest.parent.mkdir(parents=True, exist_ok=True)
            # read as ingest reads (no link followed): a file swapped since is refused, not shipped
            limit = (options.settings or IngestSettings()).max_file_bytes
            dest.write_bytes(read_bytes(Path(document.root), document.source, max_bytes=limit))
        checked = verify_reader(reader, root=sources_dir)
        status = reader.status()
        analyzer_identity = reader.analyzer_identity
        exported = export_static(
            reader,
            work / "index",
            sources_dir,
            root=SITE_SOURCES_ROOT,
            lexical_bar=bar,
            dense_floor=floor,
        )
        linked = write_links(work, options.links, documents.values(), reader.iter_chunks())
    shutil.rmtree(index_dir)
    if len(roots) > 1:  # one build-site ingests one path, so one root
        raise GroundkitError(f"expected one document root, found {sorted(roots)}")
    return _Collection(
        ingest=ingest,
        documents=documents,
        verified=checked.verified,
        failed=[check.reason for check in checked.failures] + list(checked.integrity_problems),
        status=status,
        analyzer_identity=analyzer_identity,
        exported=exported,
        linked=linked,
        lexical_bar=bar,
        dense_floor=floor,
    )


def _copy_app(
    work: Path, analyzer_identity: Mapping[str, Any] | None, theme: str | Path | None
) -> None:
    """The app's files, the analysis tables its JS path needs, and the theme."""
    for name in APP_FILES:
        shutil.copyfile(APP_DIR / name, work / name)
    (work / LANGUAGES_DIR).mkdir(exist_ok=True)
    for name in language_files(analyzer_identity):
        shutil.copyfile(APP_DIR / LANGUAGES_DIR / name, work / LANGUAGES_DIR / name)
    if theme is not None:  # before any precompression, so theme.css.gz is of this file
        shutil.copyfile(Path(theme), work / "theme.css")


def _ship_pyodide(
    work: Path,
    options: SiteOptions,
    wheel: Path,
    pyodide_version: str | None,
    bundled: tuple[str, ...],
    notice: Callable[[str], None] | None,
) -> tuple[PageRuntime, Path]:
    """Copy the runtime (with ``pyodide_dir``) and make its snapshot (with ``snapshot``);
    the runtime ``site.json`` names, and where the snapshot is (or would be)."""
    pyodide_dir = None if options.pyodide_dir is None else Path(options.pyodide_dir)
    if pyodide_dir is not None:
        (work / "pyodide").mkdir()
        for name in PYODIDE_FILES:
            shutil.copyfile(pyodide_dir / name, work / "pyodide" / name)
        pyodide = "pyodide/"
    else:
        pyodide = options.pyodide_url or DEFAULT_PYODIDE_URL
    snap = work / "pyodide" / SNAPSHOT_FILE
    stdlib_modules: int | None = None
    if options.snapshot and pyodide_dir is not None:
        modules = make_snapshot(pyodide_dir, wheel, snap, notice=notice)
        # what the restored worker can still import, traced; the rest of Python's stay unshipped
        trim_stdlib(pyodide_dir / STDLIB_ZIP, work / "pyodide" / STDLIB_ZIP, modules)
        stdlib_modules = len(modules)
        strip_zero_runs(snap)
        if options.precompress_with is None:  # no host compression: the worker inflates it
            snap = gzip_file(snap)
    runtime = PageRuntime(
        url=pyodide,
        version=pyodide_version,
        snapshot=f"pyodide/{snap.name}" if options.snapshot else None,
        stdlib_modules=stdlib_modules,
        wheel=wheel.name,
        bundled=bundled,
    )
    return runtime, snap


def _precompress_site(work: Path, wheel: Path, how: str, *, linked: bool, semantic: bool) -> None:
    """``.gz`` (and ``.br``) siblings of all but ``index/``, whose files are deflated inside."""
    top = [work / name for name in (*APP_FILES, SITE_JSON)] + [wheel]
    top += [work / LINKS_JSON] if linked else []
    folders = ("pyodide", "sources", LANGUAGES_DIR)
    files = [p for d in folders for p in sorted((work / d).rglob("*"))]
    files += precompressible(work) if semantic else []
    precompress([*top, *(p for p in files if p.is_file())], how)
