"""``groundkit shard build|status``: sharded collections (``groundkit.shards``); ``groundkit
search --collection NAME`` searches one, with every flag (adr/0057).

``build --engine NAME`` runs the same build on an engine a plugin provides (``ray``, from the
ray extra: ``pip install ".[ray]"``; adr/0053); each subcommand is one library call.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents, positive_int, vector_store_option
from groundkit.cli.render import calibrated_message, emit_json, print_table
from groundkit.config import IngestSettings
from groundkit.embedding.embedder_registry import resolve_embedder

NAME = "shard"
EPILOG = """\
examples:
  groundkit shard build docs/ --shards 4 --collection big
  groundkit shard build corpus.jsonl --corpus-dir corpus/ --shards 8 --engine ray --workers 4
  groundkit search "how do I report a leak" --collection big --top-k 5
  groundkit shard status --collection big --json
"""


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        help="build sharded collections (N collections answering as one; search them with "
        "`groundkit search --collection NAME`)",
        description="A sharded collection is N ordinary collections and a manifest; its "
        "searches return exactly the ranking and scores of one collection (docs: how-to/ray).",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    actions = parser.add_subparsers(dest="shard_command", required=True, metavar="ACTION")
    shared = [parents.collection, parents.output]
    build = actions.add_parser(
        "build", parents=shared, help="build or update a sharded collection from PATH"
    )
    build.add_argument("path", metavar="PATH", help="a folder of documents, or a .jsonl corpus")
    build.add_argument(
        "--shards",
        type=positive_int,
        default=None,
        metavar="N",
        help="number of shards (needed for a new collection; an existing one keeps its own)",
    )
    build.add_argument(
        "--engine",
        default="local",
        metavar="NAME",
        help="local: one process; or an engine a plugin provides, such as ray: Ray Data actors "
        '(pip install ".[ray]") (default: local)',
    )
    build.add_argument(
        "--workers",
        type=positive_int,
        default=2,
        metavar="N",
        help="Ray actors building shards at once (--engine ray; default: 2)",
    )
    build.add_argument(
        "--address",
        default=None,
        metavar="ADDR",
        help="Ray cluster address (--engine ray; default: a local instance)",
    )
    build.add_argument(
        "--corpus-dir",
        default=None,
        metavar="DIR",
        help="where a .jsonl corpus is written as files, which citations point at",
    )
    build.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help="also embed every chunk (e.g. hash, minilm) for dense and hybrid search",
    )
    vector_store_option(build, "vector store built beside each shard")
    build.add_argument(
        "--calibrate",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="where the collection changed, it then calibrates where it says nothing is here, "
        "the same bar beside every shard, as `groundkit ingest` does (default: on; "
        "--no-calibrate keeps the last record)",
    )
    actions.add_parser("status", parents=shared, help="the manifest: shards and statistics")


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.shards import load_manifest  # the shards are imported by this command only

    if args.shard_command == "build":
        return _build(args)
    manifest = load_manifest(args.index_dir, args.collection)
    summary = manifest.to_dict()
    if args.json:
        emit_json(summary)
    else:
        summary["shards"] = len(manifest.shards)
        print_table({k: v for k, v in summary.items() if k not in ("analyzer", "embedding")})
    return ExitCode.OK


def _build(args: argparse.Namespace) -> ExitCode:
    from groundkit.shards import ingest_sharded
    from groundkit.shards.corpus import corpus_source, jsonl_to_folder

    if args.engine != "local":
        from groundkit.shards.shard_engines import shard_engine

        report = shard_engine(args.engine).build(
            args.path,
            collection=args.collection,
            shards=args.shards,
            index_dir=args.index_dir,
            workers=args.workers,
            embedder=args.embedder,
            vector_store=args.vector_store,
            corpus_dir=args.corpus_dir,
            address=args.address,
            calibrate=args.calibrate,
        )
    else:
        source = corpus_source(args.path, args.corpus_dir)
        if source != Path(args.path):
            jsonl_to_folder(args.path, source)
        report = ingest_sharded(
            source,
            shards=args.shards,
            index_dir=args.index_dir,
            collection=args.collection,
            settings=IngestSettings(),
            embedder=None if args.embedder is None else resolve_embedder(args.embedder),
            vector_store=args.vector_store,
            calibrate=args.calibrate,
        )
    summary: dict[str, Any] = report.to_dict()
    if args.json:
        emit_json(summary)
    else:
        print_table({k: v for k, v in summary.items() if k not in ("refused", "calibration")})
        for refusal in summary["refused"]:
            print(f"refused: {refusal['message']}")
        if summary["calibration"] is not None:
            print(calibrated_message(summary["calibration"]))
    return ExitCode.REFUSED_INPUT if summary["refused"] else ExitCode.OK
