"""``groundkit ingest PATH``: ``groundkit.ingest()`` with its settings as flags."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import (
    SAMPLE_NAME,
    Parents,
    analyzer_from,
    exclude_from,
    exclude_options,
    positive_int,
    positive_seconds,
    source_path,
    stemmer_option,
    vector_store_option,
)
from groundkit.cli.render import ProgressBar, calibrated_message, emit_json
from groundkit.config import (
    DEFAULT_EXTENSIONS,
    DEFAULT_MAX_FILE_BYTES,
    ChunkerSettings,
    IngestSettings,
)
from groundkit.embedding.embedder_registry import available_embedders, resolve_embedder
from groundkit.errors import GroundkitError

if TYPE_CHECKING:
    from groundkit.ingestion import IngestReport

NAME = "ingest"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output, parents.native],
        help="add or update a file or folder in a collection",
        description=(
            "Ingest a file or folder (sorted walk; hidden folders skipped). Unchanged files are "
            "skipped, changed ones replaced, vanished ones removed; refused files are reported "
            f"and the rest go on. PATH '{SAMPLE_NAME}' means the bundled sample corpus "
            f"(write ./{SAMPLE_NAME} for a folder of that name). HTML and PDF are read "
            "through an extractor recorded with each document (PDF needs the pdf extra: "
            'pip install ".[pdf]" from the clone). Files skipped for their extension are '
            "counted; when nothing matched, the exit status is 4."
        ),
        epilog=(
            "examples:\n  groundkit ingest docs/ --collection handbook --stemmer porter\n"
            "  groundkit ingest https://docs.example.org/guide.html"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "path",
        metavar="PATH",
        help=(
            f"file or folder to ingest, '{SAMPLE_NAME}' for the bundled sample corpus (the copy "
            "installed with groundkit), or an http(s) URL to fetch once into the page archive"
        ),
    )
    stemmer_option(
        parser, "stemmer for a new collection (default: porter; an existing one keeps its own)"
    )
    _file_flags(parser)
    _chunk_flags(parser)
    _vector_flags(parser)
    _fetch_flags(parser)
    parser.add_argument(
        "--calibrate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="where the collection changed, it then calibrates where it says nothing is here, "
        "on its own pseudo queries, as `groundkit calibrate --self --write` does (default: on; "
        "--no-calibrate keeps the last record; docs: explanation/hybrid-and-abstention)",
    )
    parser.add_argument("--quiet", action="store_true", help="no progress bar, no summary")


def _file_flags(parser: argparse.ArgumentParser) -> None:
    """``IngestSettings``: which files are read."""
    parser.add_argument(
        "--max-file-bytes",
        type=positive_int,
        default=DEFAULT_MAX_FILE_BYTES,
        metavar="N",
        help=f"refuse files larger than this (default: {DEFAULT_MAX_FILE_BYTES})",
    )
    parser.add_argument(
        "--extensions",
        default=",".join(DEFAULT_EXTENSIONS),
        metavar="LIST",
        help=f"comma-separated file extensions to read (default: {','.join(DEFAULT_EXTENSIONS)})",
    )
    exclude_options(parser)


def _chunk_flags(parser: argparse.ArgumentParser) -> None:
    """``ChunkerSettings``."""
    defaults = ChunkerSettings()
    parser.add_argument(
        "--chunk-size",
        type=positive_int,
        default=defaults.target_chars,
        metavar="CHARS",
        help=f"target chunk size in characters (default: {defaults.target_chars})",
    )
    parser.add_argument(
        "--chunk-overlap",
        type=int,
        default=defaults.overlap_chars,
        metavar="CHARS",
        help=f"overlap between pieces of a split block (default: {defaults.overlap_chars})",
    )


def _vector_flags(parser: argparse.ArgumentParser) -> None:
    """The embedder a new collection is bound to, and the vector store built after."""
    parser.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help=(
            "also store a vector per chunk, for --mode dense|hybrid: a registered embedder "
            f"({', '.join(available_embedders())}; 'hash' carries no meaning: tests and demos) "
            "or a folder holding an ONNX encoder (model.onnx, tokenizer.json; needs "
            'pip install ".[onnx]"). A collection keeps the embedder it was first given'
        ),
    )
    vector_store_option(
        parser,
        "build or refresh this vector store after the ingest and make it the collection's "
        "default for searches (default: refresh the recorded one, if any)",
    )


def _fetch_flags(parser: argparse.ArgumentParser) -> None:
    """What a URL PATH may be fetched from, and for how long."""
    parser.add_argument(
        "--allow-address",
        action="append",
        default=[],
        metavar="ADDRESS",
        help=(
            "for an http(s) URL PATH: allow fetching from this private, loopback or link-local "
            "address or network (e.g. 127.0.0.1, 10.0.0.0/8); repeatable. Without it such "
            "addresses are refused, also as redirect targets"
        ),
    )
    parser.add_argument(
        "--fetch-timeout",
        type=positive_seconds,
        default=30.0,
        metavar="SECONDS",
        help="for a URL PATH: the whole fetch must finish within this (default: 30)",
    )


def _extensions(text: str) -> tuple[str, ...]:
    words = (word.strip() for word in text.split(","))
    return tuple(word if word.startswith(".") else f".{word}" for word in words if word)


def run(args: argparse.Namespace) -> int:
    from groundkit.ingestion.fetch import is_url

    settings = IngestSettings(
        max_file_bytes=args.max_file_bytes,
        extensions=_extensions(args.extensions),
        chunker=ChunkerSettings(target_chars=args.chunk_size, overlap_chars=args.chunk_overlap),
        exclude=exclude_from(args),
    )
    # The embedder is resolved (a missing extra refused) before ingest() creates the
    # collection file, so a refused ingest leaves no empty collection behind.
    embedder = None if args.embedder is None else resolve_embedder(args.embedder)
    before = _stored_generation(args.index_dir, args.collection)
    try:
        report = ingest(
            args.path if is_url(args.path) else source_path(args.path),
            index_dir=args.index_dir,
            collection=args.collection,
            analyzer=analyzer_from(args),
            settings=settings,
            embedder=embedder,
            vector_store=args.vector_store,
            progress=ProgressBar(sys.stderr, enabled=not (args.quiet or args.json)),
            allow_addresses=args.allow_address,
            fetch_timeout_s=args.fetch_timeout,
            calibrate=args.calibrate,
        )
    except KeyboardInterrupt:  # say what was stored: the groups committed before the interrupt
        print(interrupted_message(_stored_generation(args.index_dir, args.collection) - before),
              file=sys.stderr)  # fmt: skip
        return 130
    if args.json:
        emit_json(report.to_dict())
    elif not args.quiet:
        what = report.root
        if args.path == SAMPLE_NAME:  # not a folder named sample: say where it comes from
            what = f"the bundled sample corpus ({report.root}; ./{SAMPLE_NAME} for a folder)"
        where = report.collection
        if report.created:
            print(f"ingested {what} into {where}")
        else:
            print(f"stored nothing from {what}, so no collection was created at {where}")
        print(report.summary(refusals=False))  # the refusals once, on stderr, grouped by fix
        if report.calibration is not None:
            print(calibrated_message(report.calibration))
        if report.refused:
            print(report.refusals_text(), file=sys.stderr)
    if args.quiet or args.json:  # the summary (which says these) was not printed
        if not report.created:
            print(f"groundkit: no collection was created at {report.collection}", file=sys.stderr)
        if report.nothing_matched:
            print(f"groundkit: {report.nothing_matched_message()}", file=sys.stderr)
        if report.unsupported:
            print(f"groundkit: {report.unsupported_text()}", file=sys.stderr)
    # exit 4 only for a readable type refused or nothing matched (README: exit codes)
    return ExitCode.OK if report.complete else ExitCode.REFUSED_INPUT


def ingest(path: str | Path, **options: Any) -> IngestReport:
    """``groundkit.ingest``, imported when this command runs: every command's parser imports
    this module, and only this one needs ingest (adr/0047)."""
    from groundkit.ingestion import ingest as ingest_path

    return ingest_path(path, **options)


def interrupted_message(written: int) -> str:
    """What an interrupted ingest stored: the documents of the commit groups it finished."""
    files = f"{written} file{'s' * (written != 1)} of this run {'was' if written == 1 else 'were'}"
    return (
        f"groundkit: interrupted; {files} stored (the commit groups finished before the "
        "interrupt), nothing else was written; run the same command again to finish"
    )


def _stored_generation(index_dir: str, collection: str) -> int:
    """The collection's generation (one per document written), 0 before it exists."""
    from groundkit.collection import collection_status

    try:
        return int(collection_status(index_dir, collection)["generation"])
    except GroundkitError:
        return 0
