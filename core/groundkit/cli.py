"""The ``groundkit`` command: a thin shell over the library API (every flag is a parameter)."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence
from enum import IntEnum
from pathlib import Path
from typing import Any, TextIO

import groundkit
from groundkit import __version__, sample_corpus
from groundkit.analysis.analyzer import STEMMERS, Analyzer
from groundkit.collection import open_reader
from groundkit.config import (
    DEFAULT_COLLECTION,
    DEFAULT_EXTENSIONS,
    DEFAULT_INDEX_DIR,
    DEFAULT_LEG_DEPTH,
    DEFAULT_MAX_FILE_BYTES,
    DEFAULT_RERANK_DEPTH,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
    MAX_TOP_K,
    BM25Params,
    ChunkerSettings,
    IngestSettings,
)
from groundkit.embedding.registry import available_embedders, get_embedder, resolve_embedder
from groundkit.errors import (
    CollectionNotFoundError,
    ConfigurationError,
    GroundkitError,
    IngestionError,
)
from groundkit.ingest import IngestProgress
from groundkit.retrieval import MODES, Retriever, verify_citation
from groundkit.retrieval.citations import Verification, citation_for
from groundkit.retrieval.rerank import Reranker
from groundkit.vectors.registry import available_vector_stores, refresh_vector_store

__all__ = ["ExitCode", "main"]

SAMPLE_NAME = "sample"


class ExitCode(IntEnum):
    OK = 0
    ERROR = 1
    USAGE = 2
    NO_COLLECTION = 3
    REFUSED_INPUT = 4
    NOT_VERIFIED = 5


EPILOG = """\
examples:
  groundkit ingest sample                  # the bundled sample corpus
  groundkit ingest docs/ --collection handbook
  groundkit search "how do I report a leak" --top-k 5
  groundkit search "boil water notice" --json | jq '.results[0]'
  groundkit ingest sample --embedder hash --collection dense
  groundkit search "who fixes a burst main" --mode hybrid --collection dense
  groundkit ingest docs/ --embedder minilm --vector-store usearch --collection sem
  groundkit search "leak" --mode hybrid --collection sem --rerank --reranker models/ce
  groundkit verify                         # re-check every citation; non-zero if any fails
  groundkit status --json

exit codes: 0 ok, 1 error, 2 usage (as argparse), 3 no such collection, 4 input refused,
            5 a citation is not verified
"""


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _native_options(parser: argparse.ArgumentParser) -> None:
    """``--device`` and ``--threads``, for ONNX models of the native extras."""
    group = parser.add_argument_group("native models (groundkit[onnx]; see adr/0012)")
    group.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default=None,
        help="where ONNX models run (default: cpu; cuda needs groundkit[gpu] and fails "
        "rather than falling back)",
    )
    group.add_argument(
        "--threads",
        type=_positive_int,
        default=None,
        metavar="N",
        help="CPU threads per ONNX model (default: onnxruntime's choice)",
    )


def _vector_store_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument(
        "--vector-store",
        choices=available_vector_stores(),
        default=None,
        metavar="NAME",
        help=f"{help_text} ({', '.join(available_vector_stores())}; usearch needs "
        'pip install "groundkit[usearch]")',
    )


def _apply_native_options(args: argparse.Namespace) -> None:
    """Hand --device/--threads to the native extras (they read GROUNDKIT_DEVICE/_THREADS)."""
    if getattr(args, "device", None):
        os.environ["GROUNDKIT_DEVICE"] = args.device
    if getattr(args, "threads", None):
        os.environ["GROUNDKIT_THREADS"] = str(args.threads)


def _build_parser() -> argparse.ArgumentParser:
    collection = argparse.ArgumentParser(add_help=False)
    collection.add_argument(
        "--index-dir",
        default=DEFAULT_INDEX_DIR,
        metavar="DIR",
        help=f"folder holding collections (default: {DEFAULT_INDEX_DIR})",
    )
    collection.add_argument(
        "--collection",
        default=DEFAULT_COLLECTION,
        metavar="NAME",
        help=f"collection name (default: {DEFAULT_COLLECTION})",
    )
    output = argparse.ArgumentParser(add_help=False)
    output.add_argument("--json", action="store_true", help="print JSON on stdout")

    parser = argparse.ArgumentParser(
        prog="groundkit",
        description="Index documents, search them, and re-check every citation against its source.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"groundkit {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    ingest = commands.add_parser(
        "ingest",
        parents=[collection, output],
        help="add or update a file or folder in a collection",
        description=(
            "Ingest a file or folder (sorted walk; hidden folders skipped). Unchanged files are "
            "skipped, changed ones replaced, vanished ones removed; refused files are reported "
            f"and the rest go on. PATH '{SAMPLE_NAME}' means the bundled sample corpus "
            f"(write ./{SAMPLE_NAME} for a folder of that name)."
        ),
        epilog="example:\n  groundkit ingest docs/ --collection handbook --stemmer porter",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    ingest.add_argument("path", metavar="PATH", help="file or folder to ingest")
    ingest.add_argument(
        "--stemmer",
        choices=STEMMERS,
        default=None,
        help="stemmer for a new collection (default: porter; an existing one keeps its own)",
    )
    ingest.add_argument(
        "--max-file-bytes",
        type=_positive_int,
        default=DEFAULT_MAX_FILE_BYTES,
        metavar="N",
        help=f"refuse files larger than this (default: {DEFAULT_MAX_FILE_BYTES})",
    )
    ingest.add_argument(
        "--extensions",
        default=",".join(DEFAULT_EXTENSIONS),
        metavar="LIST",
        help=f"comma-separated file extensions to read (default: {','.join(DEFAULT_EXTENSIONS)})",
    )
    defaults = ChunkerSettings()
    ingest.add_argument(
        "--chunk-size",
        type=_positive_int,
        default=defaults.target_chars,
        metavar="CHARS",
        help=f"target chunk size in characters (default: {defaults.target_chars})",
    )
    ingest.add_argument(
        "--chunk-overlap",
        type=int,
        default=defaults.overlap_chars,
        metavar="CHARS",
        help=f"overlap between pieces of a split block (default: {defaults.overlap_chars})",
    )
    ingest.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help=(
            "also store a vector per chunk, for --mode dense|hybrid: a registered embedder "
            f"({', '.join(available_embedders())}; 'hash' carries no meaning: tests and demos) "
            "or a folder holding an ONNX encoder (model.onnx, tokenizer.json; needs "
            "groundkit[onnx]). A collection keeps the embedder it was first given"
        ),
    )
    _vector_store_option(
        ingest,
        "build or refresh this vector store after the ingest and make it the collection's "
        "default for searches (default: refresh the recorded one, if any)",
    )
    _native_options(ingest)
    ingest.add_argument("--quiet", action="store_true", help="no progress bar, no summary")

    search = commands.add_parser(
        "search",
        parents=[collection, output],
        help="search a collection",
        description="Print the best passages for QUERY, each with source, offsets and lines.",
        epilog='example:\n  groundkit search "chlorine residual target" --top-k 3 --verify',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    search.add_argument("query", metavar="QUERY", help="what to search for")
    search.add_argument(
        "--top-k",
        type=int,
        default=DEFAULT_TOP_K,
        metavar="N",
        help=f"number of results, 1..{MAX_TOP_K} (default: {DEFAULT_TOP_K})",
    )
    search.add_argument("--mode", default="bm25", help=f"search mode: {', '.join(MODES)}")
    search.add_argument(
        "--score-threshold",
        type=float,
        default=None,
        metavar="X",
        help="drop results scoring below X (off by default)",
    )
    bm25 = BM25Params()
    search.add_argument("--k1", type=float, default=bm25.k1, help=f"BM25 k1 (default: {bm25.k1})")
    search.add_argument("--b", type=float, default=bm25.b, help=f"BM25 b (default: {bm25.b})")
    hybrid = search.add_argument_group("hybrid (--mode hybrid; see adr/0008)")
    hybrid.add_argument(
        "--rrf-k",
        type=_positive_int,
        default=DEFAULT_RRF_K,
        metavar="N",
        help=f"reciprocal-rank fusion constant (default: {DEFAULT_RRF_K})",
    )
    hybrid.add_argument(
        "--depth",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"candidates per leg (default: max({DEFAULT_LEG_DEPTH}, results wanted))",
    )
    hybrid.add_argument(
        "--lexical-weight",
        type=float,
        default=1.0,
        metavar="W",
        help="weight of the BM25 leg's 1/(rrf_k + rank) terms (default: 1.0)",
    )
    hybrid.add_argument(
        "--dense-weight",
        type=float,
        default=1.0,
        metavar="W",
        help="weight of the dense leg's 1/(rrf_k + rank) terms (default: 1.0)",
    )
    hybrid.add_argument(
        "--min-similarity",
        type=float,
        default=None,
        metavar="X",
        help="dense evidence floor (default: the embedder's own)",
    )
    search.add_argument(
        "--rerank", action="store_true", help="re-score the candidates with a reranker"
    )
    search.add_argument(
        "--reranker",
        default=None,
        metavar="DIR",
        help="ONNX cross-encoder model folder (model.onnx, tokenizer.json); implies --rerank",
    )
    search.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help="embedder for dense/hybrid queries (default: the registered one the collection "
        "records); a collection built from a model folder needs that folder here, and any "
        "other model is refused",
    )
    _vector_store_option(search, "vector store for dense/hybrid (default: the collection's)")
    _native_options(search)
    search.add_argument(
        "--rerank-depth",
        type=_positive_int,
        default=None,
        metavar="N",
        help=f"candidates to rerank (default: max({DEFAULT_RERANK_DEPTH}, --top-k))",
    )
    search.add_argument(
        "--verify", action="store_true", help="re-check each result's citation against its source"
    )

    verify = commands.add_parser(
        "verify",
        parents=[collection, output],
        help="re-check every citation of a collection against its sources",
        description=(
            "Re-read each chunk's source and compare. Exits 5 when any citation is drifted or "
            "unresolvable, or when the index disagrees with the chunks."
        ),
    )
    verify.add_argument("--chunk-id", default=None, metavar="ID", help="check only this chunk")

    evaluate = commands.add_parser(
        "eval",
        parents=[output],
        help="score retrieval quality on a BEIR-layout dataset",
        description=(
            "Index DATASET_DIR (corpus.jsonl[.gz], queries.jsonl, qrels/test.tsv; documents as "
            "title + text) and report nDCG@10, recall@100, MRR@10, MAP@100, the number of judged "
            "queries and per-query latency p50/p95, scored at document level."
        ),
        epilog=(
            "examples:\n"
            "  groundkit eval ../shared/data/beir/scifact --json\n"
            "  groundkit eval data/nfcorpus --index-dir .groundkit --k1 1.2 --b 0.75 "
            "--per-query runs/nfcorpus.jsonl"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    evaluate.add_argument("dataset", metavar="DATASET_DIR", help="a BEIR-layout dataset folder")
    evaluate.add_argument(
        "--index-dir",
        default=None,
        metavar="DIR",
        help="keep the corpus files and collection here, so a re-run skips the ingest "
        "(default: a temporary folder and an in-memory collection)",
    )
    evaluate.add_argument(
        "--collection",
        default=None,
        metavar="NAME",
        help="collection name under --index-dir (default: beir-<dataset folder name>)",
    )
    evaluate.add_argument("--mode", default="bm25", help=f"search mode: {', '.join(MODES)}")
    evaluate.add_argument(
        "--top-k",
        type=int,
        default=100,
        metavar="N",
        help=f"documents retrieved per query, 1..{MAX_TOP_K} (default: 100)",
    )
    evaluate.add_argument("--k1", type=float, default=bm25.k1, help=f"BM25 k1 (default: {bm25.k1})")
    evaluate.add_argument("--b", type=float, default=bm25.b, help=f"BM25 b (default: {bm25.b})")
    evaluate.add_argument(
        "--stemmer",
        choices=STEMMERS,
        default=None,
        help="stemmer for a new collection (default: porter)",
    )
    evaluate.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help="also embed the corpus, for --mode dense|hybrid: a registered name (e.g. minilm) "
        "or an ONNX encoder folder",
    )
    _vector_store_option(evaluate, "vector store for dense/hybrid (default: exact)")
    _native_options(evaluate)
    evaluate.add_argument(
        "--per-query",
        default=None,
        metavar="FILE",
        help="also write each query's metrics to FILE as JSON lines",
    )

    commands.add_parser(
        "status",
        parents=[collection, output],
        help="show what a collection holds",
        description="Documents, chunks, schema version, analyzer, generation and size on disk.",
    )
    site = commands.add_parser(
        "build-site",
        parents=[output],
        help="ingest a folder and write a static search site (runs in the browser)",
        description=(
            "Ingest PATH and write into DIR a self-contained static site: the search app, a "
            "groundkit wheel, the collection and the source files (for verify), loaded by "
            "Pyodide in the browser; any static host can serve it (adr/0011). PATH "
            f"'{SAMPLE_NAME}' means the bundled sample corpus. An earlier site in DIR is replaced."
        ),
        epilog=(
            "examples:\n"
            "  groundkit build-site docs/ -o public/search\n"
            "  groundkit build-site sample -o /tmp/site --pyodide-dir node_modules/pyodide\n"
            "  python -m http.server -d /tmp/site 8000   # then open http://127.0.0.1:8000/"
        ),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    site.add_argument("path", metavar="PATH", help="file or folder to ingest")
    site.add_argument("-o", "--out", required=True, metavar="DIR", help="folder to write")
    site.add_argument(
        "--collection-name",
        default=DEFAULT_COLLECTION,
        metavar="NAME",
        help=f"name of the collection inside the site (default: {DEFAULT_COLLECTION})",
    )
    site.add_argument("--title", default=None, help="page title (default: PATH's folder name)")
    where = site.add_mutually_exclusive_group()
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
    site.add_argument(
        "--embedder",
        choices=available_embedders(),
        default=None,
        metavar="NAME",
        help="also store vectors, for dense/hybrid search in the page",
    )
    site.add_argument("--stemmer", choices=STEMMERS, default=None, help="stemmer (default: porter)")
    site.add_argument(
        "--force",
        action="store_true",
        help="write into DIR even if it is a non-empty folder that is not a groundkit site",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = _build_parser().parse_args(argv)
    _apply_native_options(args)
    handlers = {
        "ingest": _ingest,
        "search": _search,
        "verify": _verify,
        "status": _status,
        "eval": _eval,
        "build-site": _build_site,
    }
    try:
        return int(handlers[args.command](args))
    except CollectionNotFoundError as exc:
        return _fail(exc, ExitCode.NO_COLLECTION)
    except IngestionError as exc:
        return _fail(exc, ExitCode.REFUSED_INPUT)
    except ConfigurationError as exc:
        return _fail(exc, ExitCode.USAGE)
    except GroundkitError as exc:
        return _fail(exc, ExitCode.ERROR)
    except KeyboardInterrupt:
        print("groundkit: interrupted; every finished file is stored", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of stdout left (`| head`): stop quietly, as cat does
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _fail(exc: GroundkitError, code: ExitCode) -> int:
    print(f"groundkit: error: {exc.message}", file=sys.stderr)
    return int(code)


def _emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


class _ProgressBar:
    """A one-line progress bar on a terminal; silent elsewhere."""

    def __init__(self, stream: TextIO, enabled: bool) -> None:
        self._stream = stream
        self._enabled = enabled and stream.isatty()

    def __call__(self, event: IngestProgress) -> None:
        if not self._enabled:
            return
        width = 30
        filled = width * event.done // max(event.total, 1)
        name = event.source if len(event.source) <= 40 else "…" + event.source[-39:]
        self._stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {event.done}/{event.total} {name:<40}"
        )
        if event.done == event.total:
            self._stream.write("\n")
        self._stream.flush()


def _ingest(args: argparse.Namespace) -> ExitCode:
    path = sample_corpus() if args.path == SAMPLE_NAME else Path(args.path)
    extensions = tuple(
        e if e.startswith(".") else f".{e}"
        for e in (x.strip() for x in args.extensions.split(","))
        if e
    )
    settings = IngestSettings(
        max_file_bytes=args.max_file_bytes,
        extensions=extensions,
        chunker=ChunkerSettings(target_chars=args.chunk_size, overlap_chars=args.chunk_overlap),
    )
    # The embedder is resolved (a missing extra refused) before groundkit.ingest creates the
    # collection file, so a refused ingest leaves no empty collection behind.
    embedder = None if args.embedder is None else resolve_embedder(args.embedder)
    report = groundkit.ingest(
        path,
        index_dir=args.index_dir,
        collection=args.collection,
        analyzer=None if args.stemmer is None else Analyzer(stemmer=args.stemmer),
        settings=settings,
        embedder=embedder,
        progress=_ProgressBar(sys.stderr, enabled=not (args.quiet or args.json)),
    )
    with open_reader(args.index_dir, args.collection) as reader:
        refresh_vector_store(
            reader, args.vector_store, location=getattr(reader, "location", args.collection)
        )
    if args.json:
        _emit_json(report.to_dict())
    elif not args.quiet:
        print(f"ingested {report.root} into {report.collection}")
        print(report.summary())
        for refusal in report.refused:
            print(f"  refused {refusal.source}: {refusal.message}", file=sys.stderr)
    return ExitCode.OK if report.ok else ExitCode.REFUSED_INPUT


def _snippet(text: str, limit: int = 240) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _load_reranker(folder: str) -> Reranker:
    from groundkit.plugins import load_extra

    target = "groundkit_native.onnx_reranker:OnnxCrossEncoder"
    cross_encoder: Any = load_extra(target, extra="onnx", what=f"reranker {folder}")
    reranker: Reranker = cross_encoder.from_dir(folder)
    return reranker


def _search(args: argparse.Namespace) -> ExitCode:
    params = BM25Params(k1=args.k1, b=args.b)
    reranker = None if args.reranker is None else _load_reranker(args.reranker)
    with Retriever.open(
        args.index_dir,
        args.collection,
        bm25=params,
        embedder=None if args.embedder is None else resolve_embedder(args.embedder),
        reranker=reranker,
        vector_store=args.vector_store,
    ) as retriever:
        hybrid: dict[str, Any] = {}
        if args.mode == "hybrid":
            hybrid = {
                "rrf_k": args.rrf_k,
                "depth": args.depth,
                "weights": (args.lexical_weight, args.dense_weight),
                "min_similarity": args.min_similarity,
            }
        response = retriever.search(
            args.query,
            top_k=args.top_k,
            mode=args.mode,
            score_threshold=args.score_threshold,
            rerank=args.rerank or reranker is not None,
            rerank_depth=args.rerank_depth,
            **hybrid,
        )
        checks = [retriever.verify(r) for r in response.results] if args.verify else []
    if args.json:
        payload = response.to_dict()
        for item, check in zip(payload["results"], checks, strict=False):
            item["verification"] = {"verdict": check.verdict, "reason": check.reason}
        _emit_json(payload)
    else:
        if not response.results:
            print(f"no results for {args.query!r}")
        for rank, result in enumerate(response.results, start=1):
            c = result.citation
            verdict = f"  [{checks[rank - 1].verdict}]" if checks else ""
            print(
                f"{rank:>2}. {c.source}:{c.start_line}-{c.end_line} "
                f"[{c.start_offset}:{c.end_offset}]  score {result.score:.4f}{verdict}"
            )
            heading = " > ".join(result.metadata.get("heading_path", []))
            if heading:
                print(f"    § {heading}")
            print(f"    {_snippet(result.content)}")
    if checks and not all(check.ok for check in checks):
        return ExitCode.NOT_VERIFIED
    return ExitCode.OK


def _verify(args: argparse.Namespace) -> ExitCode:
    with open_reader(args.index_dir, args.collection) as reader:
        problems = reader.integrity_problems()
        documents = {d.document_id: d for d in reader.iter_documents()}
        checks: list[Verification] = []
        for chunk in reader.iter_chunks():
            if args.chunk_id is not None and chunk.chunk_id != args.chunk_id:
                continue
            document = documents.get(chunk.document_id)
            if document is None:
                problems.append(f"chunk {chunk.chunk_id} has no document record")
                continue
            checks.append(verify_citation(citation_for(chunk, document), document.root))
    if args.chunk_id is not None and not checks and not problems:
        raise GroundkitError(
            f"no chunk with id {args.chunk_id!r} in this collection; "
            "`groundkit search --json` shows chunk ids"
        )
    counts = {
        v: sum(c.verdict == v for c in checks) for v in ("verified", "drifted", "unresolvable")
    }
    failed = [c for c in checks if not c.ok]
    if args.json:
        _emit_json(
            {
                "checked": len(checks),
                **counts,
                "integrity_problems": problems,
                "failures": [
                    {
                        "source": c.citation.source,
                        "start_offset": c.citation.start_offset,
                        "end_offset": c.citation.end_offset,
                        "verdict": c.verdict,
                        "reason": c.reason,
                    }
                    for c in failed
                ],
            }
        )
    else:
        print(
            f"checked {len(checks)} citations: {counts['verified']} verified, "
            f"{counts['drifted']} drifted, {counts['unresolvable']} unresolvable"
        )
        for check in failed:
            print(f"  {check.verdict}: {check.reason}")
        for problem in problems:
            print(f"  index problem: {problem}")
    return ExitCode.OK if not failed and not problems else ExitCode.NOT_VERIFIED


def _eval(args: argparse.Namespace) -> ExitCode:
    from groundkit.evaluation.run import evaluate_dataset

    progress = _ProgressBar(sys.stderr, enabled=True)
    result = evaluate_dataset(
        args.dataset,
        index_dir=args.index_dir,
        collection=args.collection,
        mode=args.mode,
        top_k=args.top_k,
        bm25=BM25Params(k1=args.k1, b=args.b),
        analyzer=None if args.stemmer is None else Analyzer(stemmer=args.stemmer),
        embedder=None if args.embedder is None else resolve_embedder(args.embedder),
        vector_store=args.vector_store,
        progress=progress,
    )
    if args.per_query:
        result.write_per_query(args.per_query)
    if args.json:
        _emit_json(result.to_dict())
    else:
        for key, value in result.metrics.items():
            shown = value if isinstance(value, int) else f"{value:.4f}"
            print(f"{key:<16} {shown}")
    return ExitCode.OK


def _status(args: argparse.Namespace) -> ExitCode:
    with open_reader(args.index_dir, args.collection) as reader:
        status = reader.status()
    status["collection"] = args.collection
    if args.json:
        _emit_json(status)
    else:
        width = max(len(k) for k in status)
        for key, value in status.items():
            shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value
            print(f"{key:<{width}}  {shown}")
    return ExitCode.OK


def _build_site(args: argparse.Namespace) -> ExitCode:
    from groundkit.site import build_site

    path = sample_corpus() if args.path == SAMPLE_NAME else Path(args.path)
    report = build_site(
        path,
        args.out,
        collection=args.collection_name,
        title=args.title or ("groundkit sample" if args.path == SAMPLE_NAME else None),
        pyodide_url=args.pyodide_url,
        pyodide_dir=args.pyodide_dir,
        analyzer=None if args.stemmer is None else Analyzer(stemmer=args.stemmer),
        embedder=None if args.embedder is None else get_embedder(args.embedder),
        force=args.force,
        progress=_ProgressBar(sys.stderr, enabled=not args.json),
    )
    if args.json:
        _emit_json(report.to_dict())
    else:
        print(f"wrote a static search site of {report.ingest.root} to {report.out}")
        print(report.ingest.summary())
        print(
            f"wheel {report.wheel} ({report.wheel_bytes} bytes), collection "
            f"{report.collection_bytes} bytes, {report.sources} source files "
            f"({report.sources_bytes} bytes); Pyodide: "
            + ("copied into pyodide/" if report.pyodide_copied else report.pyodide)
        )
        print(
            f"{report.citations_verified} citations verified against the site's copies"
            + (f", {len(report.citations_failed)} NOT" if report.citations_failed else "")
        )
        for reason in report.citations_failed:
            print(f"  {reason}", file=sys.stderr)
        for refusal in report.ingest.refused:
            print(f"  refused {refusal.source}: {refusal.message}", file=sys.stderr)
        print(f"serve it with: python3 -m http.server --directory {report.out}")
    if report.citations_failed:
        return ExitCode.NOT_VERIFIED
    return ExitCode.OK if report.ingest.ok else ExitCode.REFUSED_INPUT
