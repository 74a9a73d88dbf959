"""``groundkit build-site PATH -o DIR``: ``build_site()``, a static search site."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING, Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import (
    SAMPLE_NAME,
    Parents,
    analyzer_from,
    exclude_from,
    exclude_options,
    source_path,
    stemmer_option,
)
from groundkit.cli.render import ProgressBar, emit_json
from groundkit.config import DEFAULT_COLLECTION, IngestSettings
from groundkit.embedding.embedder_registry import available_embedders, get_embedder
from groundkit.site.source_links import URL_RULES

if TYPE_CHECKING:
    from groundkit.site.layout import SiteReport

NAME = "build-site"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.output],
        help="ingest a folder and write a static search site (runs in the browser)",
        description=(
            "Ingest PATH and write into DIR a self-contained static site: the search app, a "
            "groundkit wheel, the collection and the source files (for verify), loaded by "
            "Pyodide in the browser; any static host can serve it (docs: how-to/browser-site). "
            "PATH "
            f"'{SAMPLE_NAME}' means the bundled sample corpus. An earlier site in DIR is replaced."
        ),
        epilog=(
            "examples:\n"
            "  groundkit build-site docs/ -o public/search\n"
            "  groundkit build-site sample -o /tmp/site --pyodide-dir node_modules/pyodide\n"
            "  groundkit build-site django/docs -o public/search --url-rule sphinx-dirhtml \\\n"
            "      --base-url https://docs.djangoproject.com/en/5.2/   # results link there\n"
            "  groundkit build-site docs/ -o /tmp/site --embedder minilm \\\n"
            "      --ort-dir node_modules/onnxruntime-web   # semantic search in the page\n"
            "  python -m http.server -d /tmp/site 8000   # then open http://127.0.0.1:8000/"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("path", metavar="PATH", help="file or folder to ingest")
    parser.add_argument("-o", "--out", required=True, metavar="DIR", help="folder to write")
    parser.add_argument(
        "--collection-name",
        default=DEFAULT_COLLECTION,
        metavar="NAME",
        help=f"name of the collection inside the site (default: {DEFAULT_COLLECTION})",
    )
    stemmer_option(parser, "stemmer (default: porter)")
    exclude_options(parser)
    parser.add_argument(
        "--force",
        action="store_true",
        help="write into DIR even if it is a non-empty folder that is not a groundkit site",
    )
    _page_flags(parser)
    _link_flags(parser)
    _runtime_flags(parser)
    _semantic_flags(parser)


def _page_flags(parser: argparse.ArgumentParser) -> None:
    """What the page shows its visitors."""
    page = parser.add_argument_group("the page")
    page.add_argument("--title", default=None, help='page title (default: "Search")')
    page.add_argument(
        "--theme",
        default=None,
        metavar="FILE.css",
        help="ship this CSS as the page's theme, loaded after its own: set its custom "
        "properties (--accent, --bg, --mark, ...; listed in the site's theme.css)",
    )
    page.add_argument(
        "--debug-ui",
        action="store_true",
        help="also show the search-mode menu and each result's score (for the site's owner)",
    )
    page.add_argument(
        "--no-calibrate",
        dest="calibrate",
        action="store_false",
        help='ship no "nothing here" bar: the page then answers every query that shares a '
        "word with the collection (default: the collection fits one on its own pseudo "
        "queries, as `groundkit calibrate --self`, and the page abstains under it; with "
        "--embedder, also its dense floor and hybrid share, else the embedder's floor "
        "applies; docs: explanation/hybrid-and-abstention)",
    )
    page.add_argument(
        "--allow-local-files",
        action="store_true",
        help="also offer visitors a panel that indexes their own files in the page",
    )


def _link_flags(parser: argparse.ArgumentParser) -> None:
    """``LinkSpec.from_options``: each result linked to its source's rendered page."""
    links = parser.add_argument_group("links to rendered pages (docs: how-to/browser-site)")
    links.add_argument(
        "--base-url",
        default=None,
        metavar="URL",
        help="link each result to its source's rendered page under URL (https://... or "
        "/path/), named by --url-rule; the page's source view stays, for checking the "
        "citation (docs: how-to/browser-site)",
    )
    links.add_argument(
        "--url-rule",
        choices=URL_RULES,
        default=None,
        help="with --base-url: how a source names its page. sphinx-dirhtml: a/b.txt -> "
        "URL/a/b/ (a/index.txt -> URL/a/), sphinx-html: URL/a/b.html, mkdocs: a/b.md -> "
        "URL/a/b/, each with the heading's #anchor where known; same (the default): URL/a/b.txt",
    )
    links.add_argument(
        "--url-map",
        default=None,
        metavar="FILE.json",
        help='link results by a JSON object of source -> URL ({"a/b.md": "/a/b/"}) instead; '
        "a source it names that the collection lacks is refused, one it leaves out is not linked",
    )


def _runtime_flags(parser: argparse.ArgumentParser) -> None:
    """Where Pyodide comes from, its snapshot, and pre-compressed copies."""
    runtime = parser.add_argument_group("the Python runtime (docs: how-to/browser-site)")
    where = runtime.add_mutually_exclusive_group()
    where.add_argument(
        "--pyodide-url",
        default=None,
        metavar="URL",
        help="where the page loads Pyodide 314 from, absolute or relative to the site "
        "(default: the jsDelivr CDN copy of the npm package)",
    )
    where.add_argument(
        "--pyodide-dir",
        default=None,
        metavar="DIR",
        help="copy the Pyodide runtime from this npm package folder (node_modules/pyodide) "
        "into the site, so it needs no other host",
    )
    runtime.add_argument(
        "--snapshot",
        action="store_true",
        help="with --pyodide-dir: also ship Pyodide's memory snapshot with groundkit imported "
        "(made with Node.js here; the page restores it instead of starting Python: faster to "
        "the first result; 6.1 MB gzipped, and a standard library cut to what the page "
        "imports; docs: how-to/browser-site)",
    )
    runtime.add_argument(
        "--precompress",
        choices=("gzip", "brotli"),
        default=None,
        help="also write NAME.gz (gzip) or NAME.gz and NAME.br (brotli: the brotli extra) "
        "beside the runtime and app files, for hosts that serve pre-compressed files "
        "(nginx gzip_static/brotli_static, Caddy precompressed); with --snapshot the snapshot "
        "then ships plain for the host to compress (docs: how-to/browser-site)",
    )


def _semantic_flags(parser: argparse.ArgumentParser) -> None:
    """Vectors, and the model that embeds a visitor's query in the page."""
    semantic = parser.add_argument_group("semantic search (docs: how-to/browser-site)")
    semantic.add_argument(
        "--embedder",
        choices=available_embedders(),
        default=None,
        metavar="NAME",
        help="also store vectors, for dense/hybrid search in the page",
    )
    semantic.add_argument(
        "--ort-dir",
        default=None,
        metavar="DIR",
        help="with --embedder minilm: copy onnxruntime-web from this npm package folder "
        "(node_modules/onnxruntime-web) and the model into the site, so a visitor can turn on "
        "semantic search, embedded in the page (fetched only then: about 38 MB; "
        "docs: how-to/browser-site)",
    )


def _print_summary(report: SiteReport) -> None:
    """What ``build-site`` wrote and what the page will do, for a person reading it."""
    print(f"wrote a static search site of {report.ingest.root} to {report.out}")
    print(report.ingest.summary(refusals=False))  # the refusals once, on stderr
    print(
        f"wheel {report.wheel} ({report.wheel_bytes} bytes), index "
        f"{report.collection_bytes} bytes, {report.sources} source files "
        f"({report.sources_bytes} bytes); Pyodide: "
        + ("copied into pyodide/" if report.pyodide_copied else report.pyodide)
        + (f", snapshot {report.snapshot_bytes} bytes" if report.snapshot_bytes else "")
        + (f", semantic search {report.semantic_bytes} bytes" if report.semantic_bytes else "")
    )
    print(
        f"{report.citations_verified} citations verified against the site's copies"
        + (f", {len(report.citations_failed)} NOT" if report.citations_failed else "")
    )
    for reason in report.citations_failed:
        print(f"  {reason}", file=sys.stderr)
    if report.ingest.refused:
        print(report.ingest.refusals_text(), file=sys.stderr)
    if report.links is not None:
        print(f"{report.links} of {report.sources} sources link to their rendered page")
    bar = report.lexical_bar
    if bar is not None:
        print(
            f'the page says "nothing here" under a lexical share of {bar["share"]} '
            "(self-calibrated)"
            if bar["separates"]
            else 'the page never says "nothing here" in bm25: its self-calibration '
            f"did not separate on-topic from off-topic queries (share {bar['share']})"
        )
    floor = report.dense_floor
    if floor is not None:
        print(
            f"dense and hybrid search use a similarity floor of {floor['floor']} and a "
            f"lexical share of {floor['lexical_share']} (self-calibrated)"
        )
    if report.python_first is not None:
        print(
            "the page answers once Python has started (no first answer before it): "
            f"{report.python_first}"
        )
    print(f"serve it with: python3 -m http.server --directory {report.out}")
    print(
        "embed it in your own pages: embed.html in the site shows the <script> tag and "
        "the JS API (window.groundkit.search)"
    )


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.site import SiteOptions, build_site
    from groundkit.site.source_links import LinkSpec

    links = LinkSpec.from_options(
        base_url=args.base_url, url_rule=args.url_rule, url_map=args.url_map
    )
    options = SiteOptions(
        collection=args.collection_name,
        analyzer=analyzer_from(args),
        settings=IngestSettings(exclude=exclude_from(args)),
        embedder=None if args.embedder is None else get_embedder(args.embedder),
        title=args.title or ("groundkit sample" if args.path == SAMPLE_NAME else None),
        theme=args.theme,
        links=links,
        debug_ui=args.debug_ui,
        allow_local_files=args.allow_local_files,
        pyodide_url=args.pyodide_url,
        pyodide_dir=args.pyodide_dir,
        snapshot=args.snapshot,
        ort_dir=args.ort_dir,
        precompress_with=args.precompress,
        force=args.force,
        calibrate=args.calibrate,
    )
    report = build_site(
        source_path(args.path),
        args.out,
        options,
        progress=ProgressBar(sys.stderr, enabled=not args.json),
        notice=lambda line: print(f"groundkit: {line}", file=sys.stderr, flush=True),
    )
    if args.json:
        emit_json(report.to_dict())
    else:
        _print_summary(report)
    if report.ingest.unsupported and args.json:  # the summary says it otherwise
        print(f"groundkit: {report.ingest.unsupported_text()}", file=sys.stderr)
    if report.citations_failed:
        return ExitCode.NOT_VERIFIED
    return ExitCode.OK if report.ingest.complete else ExitCode.REFUSED_INPUT
