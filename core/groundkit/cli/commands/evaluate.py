"""``groundkit eval DATASET_DIR``: ``evaluate_dataset()`` on a BEIR-layout folder."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import (
    Parents,
    analyzer_from,
    bm25_options,
    stemmer_option,
    vector_store_option,
)
from groundkit.cli.render import ProgressBar, emit_json
from groundkit.config import MAX_TOP_K, BM25Params
from groundkit.embedding.embedder_registry import resolve_embedder
from groundkit.retrieval import MODES

NAME = "eval"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.output, parents.native],
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
    parser.add_argument("dataset", metavar="DATASET_DIR", help="a BEIR-layout dataset folder")
    parser.add_argument(
        "--index-dir",
        default=None,
        metavar="DIR",
        help="keep the corpus files and collection here, so a re-run skips the ingest "
        "(default: a temporary folder and an in-memory collection)",
    )
    parser.add_argument(
        "--collection",
        default=None,
        metavar="NAME",
        help="collection name under --index-dir (default: beir-<dataset folder name>)",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="search mode (default: the collection's, as `groundkit search` picks it: hybrid "
        "with a semantic --embedder, else bm25); the output names the mode scored",
    )
    parser.add_argument(
        "--top-k",
        type=int,
        default=100,
        metavar="N",
        help=f"documents retrieved per query, 1..{MAX_TOP_K} (default: 100)",
    )
    bm25_options(parser)
    stemmer_option(parser, "stemmer for a new collection (default: porter)")
    parser.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help="also embed the corpus, for --mode dense|hybrid: a registered name (e.g. minilm) "
        "or an ONNX encoder folder",
    )
    vector_store_option(parser, "vector store for dense/hybrid (default: exact)")
    parser.add_argument(
        "--min-similarity",
        type=float,
        default=None,
        metavar="X",
        help="dense/hybrid similarity floor (default: the collection's; -1 turns it off)",
    )
    parser.add_argument(
        "--per-query",
        default=None,
        metavar="FILE",
        help="also write each query's metrics to FILE as JSON lines",
    )


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.evaluation.run import evaluate_dataset

    result = evaluate_dataset(
        args.dataset,
        index_dir=args.index_dir,
        collection=args.collection,
        mode=args.mode,
        top_k=args.top_k,
        bm25=BM25Params(k1=args.k1, b=args.b),
        analyzer=analyzer_from(args),
        embedder=None if args.embedder is None else resolve_embedder(args.embedder),
        vector_store=args.vector_store,
        min_similarity=args.min_similarity,
        progress=ProgressBar(sys.stderr, enabled=True),
    )
    if args.per_query:
        result.write_per_query(args.per_query)
    if args.json:
        emit_json(result.to_dict())
    else:
        print(f"{'mode':<16} {result.mode}")
        for key, value in result.metrics.items():
            shown = value if isinstance(value, int) else f"{value:.4f}"
            print(f"{key:<16} {shown}")
    return ExitCode.OK
