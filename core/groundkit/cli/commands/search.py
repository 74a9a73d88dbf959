"""``groundkit search QUERY``: a ``SearchRequest`` as flags, run by the collection's searcher
(a sharded collection's too: ``--collection`` names either)."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import (
    Parents,
    analyzer_from,
    bm25_options,
    positive_int,
    stemmer_option,
    vector_store_option,
)
from groundkit.cli.render import show_search
from groundkit.config import (
    DEFAULT_LEG_DEPTH,
    DEFAULT_RERANK_DEPTH,
    DEFAULT_RRF_K,
    DEFAULT_TOP_K,
    MAX_TOP_K,
    BM25Params,
)
from groundkit.embedding.embedder_registry import resolve_embedder
from groundkit.retrieval import MODES, Searcher
from groundkit.retrieval.abstention import DEFAULT_MIN_LEXICAL_SHARE
from groundkit.retrieval.request import (
    GroupOptions,
    HybridOptions,
    MetadataValue,
    RerankOptions,
    SearchFilter,
    SearchRequest,
)
from groundkit.retrieval.rerankers import resolve_reranker

NAME = "search"


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output, parents.native],
        help="search a collection",
        description="Print the best passages for QUERY, each with source, offsets and lines.",
        epilog='example:\n  groundkit search "chlorine residual target" --top-k 3 --verify',
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("query", metavar="QUERY", help="what to search for")
    _ranking_flags(parser)
    _hybrid_flags(parser)
    _filter_flags(parser)
    _word_flags(parser)
    _page_flags(parser)
    _rerank_flags(parser)
    parser.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help="embedder for dense/hybrid queries (default: the registered one the collection "
        "records); a collection built from a model folder needs that folder here, and any "
        "other model is refused",
    )
    vector_store_option(parser, "vector store for dense/hybrid (default: the collection's)")
    stemmer_option(parser, "expected stemmer (default: the collection's; another is refused)")
    parser.add_argument(
        "--verify", action="store_true", help="re-check each result's citation against its source"
    )


def _ranking_flags(parser: argparse.ArgumentParser) -> None:
    """How many results, in which mode, scored how: the request's own fields."""
    parser.add_argument(
        "--top-k",
        type=int,
        default=None,
        metavar="N",
        help=f"number of results, 1..{MAX_TOP_K} (default: {DEFAULT_TOP_K})",
    )
    parser.add_argument(
        "--mode",
        choices=MODES,
        default=None,
        help="search mode (default: hybrid on a collection bound to a semantic embedder such "
        "as minilm, else bm25; docs: explanation/hybrid-and-abstention)",
    )
    parser.add_argument(
        "--score-threshold",
        type=float,
        default=None,
        metavar="X",
        help="drop results scoring below X (off by default)",
    )
    bm25_options(parser)
    parser.add_argument(
        "--min-similarity",
        type=float,
        default=None,
        metavar="X",
        help="dense/hybrid: the similarity under which a passage counts as unrelated, so a "
        "query with nothing over it gets no dense results (default: the collection's floor "
        "from `groundkit calibrate`, else the embedder's; -1 turns it off; "
        "docs: explanation/hybrid-and-abstention)",
    )
    parser.add_argument(
        "--lexical-bar",
        type=float,
        default=None,
        metavar="S",
        help="bm25: say nothing here when BM25's best score is under this share of the ideal "
        "score of the query's four most specific words (0..1; default: the collection's "
        "calibrated bar, where its calibration found one that separates; 0: any BM25 match "
        "answers; a bar over 0 also says nothing here for a query naming a thing no passage "
        "mentions; docs: explanation/hybrid-and-abstention)",
    )


def _hybrid_flags(parser: argparse.ArgumentParser) -> None:
    """``HybridOptions``, one flag a field."""
    hybrid = parser.add_argument_group(
        "hybrid (--mode hybrid; docs: explanation/hybrid-and-abstention)"
    )
    hybrid.add_argument(
        "--rrf-k",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"reciprocal-rank fusion constant (default: {DEFAULT_RRF_K})",
    )
    hybrid.add_argument(
        "--depth",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"candidates per leg (default: max({DEFAULT_LEG_DEPTH}, results wanted))",
    )
    hybrid.add_argument(
        "--lexical-weight",
        type=float,
        default=None,
        metavar="W",
        help="weight of the BM25 leg's 1/(rrf_k + rank) terms (default: 1.0)",
    )
    hybrid.add_argument(
        "--dense-weight",
        type=float,
        default=None,
        metavar="W",
        help="weight of the dense leg's 1/(rrf_k + rank) terms (default: 1.0)",
    )
    hybrid.add_argument(
        "--min-lexical-share",
        type=float,
        default=None,
        metavar="S",
        help="when no passage reaches the similarity floor, answer from BM25 only if its best "
        "score is at least this share of the query's ideal score, else say nothing here "
        "(0..1; default: the collection's, recorded by `groundkit calibrate --write`, else "
        f"{DEFAULT_MIN_LEXICAL_SHARE}; 0: any BM25 match answers; "
        "docs: explanation/hybrid-and-abstention)",
    )


def _filter_flags(parser: argparse.ArgumentParser) -> None:
    """``SearchFilter``: which chunks may answer."""
    narrow = parser.add_argument_group("filter (exact: --top-k counts only matching chunks)")
    narrow.add_argument(
        "--source-prefix",
        default=None,
        metavar="PATH",
        help="only chunks of sources whose path starts with PATH (e.g. operations/)",
    )
    narrow.add_argument(
        "--where",
        action="append",
        type=_metadata_item,
        default=[],
        metavar="KEY=VALUE",
        help="only chunks whose metadata KEY equals VALUE, or contains it when KEY holds a list "
        "(heading_path=Billing); repeat for more; true/false/numbers are typed",
    )


def _word_flags(parser: argparse.ArgumentParser) -> None:
    """``prefix`` and ``fuzzy``: what else a query word matches."""
    words = parser.add_argument_group(
        "word matching (bm25 and hybrid; docs: how-to/prefix-and-typos)"
    )
    words.add_argument(
        "--prefix",
        action="store_true",
        help="the last word also matches the indexed words it begins, as in a search box "
        "(paginat finds pagination); a word that is itself a word of the text keeps it first, "
        "its completions weighed by their share of the passages",
    )
    words.add_argument(
        "--fuzzy",
        action="store_true",
        help="a word found nowhere (or almost) also matches indexed words one typo away from "
        "four letters, two from eight (middlware finds middleware), at 3/4 the weight (in full "
        "where the word is found nowhere and one word alone is in reach)",
    )


def _page_flags(parser: argparse.ArgumentParser) -> None:
    """``GroupOptions``: results grouped by page."""
    pages = parser.add_argument_group("grouping by page (docs: explanation/search)")
    pages.add_argument(
        "--group",
        action="store_true",
        help="one entry per source page, its best passages beneath it, pages ranked by their best"
        " passage plus half their second; --top-k counts pages",
    )
    pages.add_argument(
        "--group-passages",
        type=positive_int,
        default=None,
        metavar="N",
        help="passages listed under each page (default: 3); implies --group",
    )
    pages.add_argument(
        "--group-depth",
        type=positive_int,
        default=None,
        metavar="N",
        help="passages ranked to find the pages (default: max(100, 10 x --top-k)); implies --group",
    )


def _rerank_flags(parser: argparse.ArgumentParser) -> None:
    """``RerankOptions`` and the reranker that runs it."""
    rerank = parser.add_argument_group("rerank (docs: how-to/cross-encoder)")
    rerank.add_argument(
        "--rerank", action="store_true", help="re-score the candidates with a reranker"
    )
    rerank.add_argument(
        "--reranker",
        default=None,
        metavar="NAME|DIR",
        help="a registered reranker, or an ONNX cross-encoder model folder (model.onnx, "
        "tokenizer.json); implies --rerank",
    )
    rerank.add_argument(
        "--rerank-depth",
        type=positive_int,
        default=None,
        metavar="N",
        help=f"candidates to rerank (default: max({DEFAULT_RERANK_DEPTH}, --top-k)); implies "
        "--rerank",
    )


def _metadata_item(text: str) -> tuple[str, MetadataValue]:
    key, sep, raw = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    value: MetadataValue = raw
    if raw in ("true", "false"):
        value = raw == "true"
    else:
        for kind in (int, float):
            try:
                value = kind(raw)
                break
            except ValueError:
                continue
    return key, value


def _filter(args: argparse.Namespace) -> SearchFilter | None:
    if args.source_prefix is None and not args.where:
        return None
    return SearchFilter(source_prefix=args.source_prefix, metadata=dict(args.where))


def _group(args: argparse.Namespace) -> GroupOptions | None:
    if not (args.group or args.group_passages is not None or args.group_depth is not None):
        return None
    passages = GroupOptions().passages if args.group_passages is None else args.group_passages
    return GroupOptions(passages=passages, depth=args.group_depth)


_HYBRID_FLAGS = ("rrf_k", "depth", "lexical_weight", "dense_weight", "min_lexical_share")


def search_request(args: argparse.Namespace) -> SearchRequest:
    """The ``SearchRequest`` the flags ask for, and only what they ask: a flag not given is
    left to the request's default, and a flag given where the mode does not use it (say
    ``--mode bm25 --rrf-k 5``) is refused by the request itself, as the library and the
    service refuse it (adr/0057)."""
    hybrid = None
    if any(getattr(args, name) is not None for name in _HYBRID_FLAGS):
        hybrid = HybridOptions(
            rrf_k=DEFAULT_RRF_K if args.rrf_k is None else args.rrf_k,
            depth=args.depth,
            weights=(
                1.0 if args.lexical_weight is None else args.lexical_weight,
                1.0 if args.dense_weight is None else args.dense_weight,
            ),
            min_lexical_share=args.min_lexical_share,
        )
    reranked = args.rerank or args.reranker is not None or args.rerank_depth is not None
    return SearchRequest(
        args.query,
        DEFAULT_TOP_K if args.top_k is None else args.top_k,
        args.mode,
        score_threshold=args.score_threshold,
        min_similarity=args.min_similarity,
        lexical_bar=args.lexical_bar,
        hybrid=hybrid,
        rerank=RerankOptions(depth=args.rerank_depth) if reranked else None,
        where=_filter(args),
        prefix=args.prefix,
        fuzzy=args.fuzzy,
        group=_group(args),
    )


def _open(args: argparse.Namespace) -> Searcher:
    """The collection ``--collection`` names, sharded (a folder with ``shards.json``) or not,
    opened with the flags' settings."""
    reranker = None if args.reranker is None else resolve_reranker(args.reranker)
    embedder = None if args.embedder is None else resolve_embedder(args.embedder)
    return Searcher.open(
        args.index_dir,
        args.collection,
        bm25=BM25Params(k1=args.k1, b=args.b),
        embedder=embedder,
        reranker=reranker,
        vector_store=args.vector_store,
        analyzer=analyzer_from(args),
    )


def run(args: argparse.Namespace) -> ExitCode:
    request = search_request(args)  # refused before any collection is opened
    with _open(args) as searcher:
        response = searcher.search(request)
        checks = [searcher.verify(r) for r in response.results] if args.verify else []
    show_search(response, checks, as_json=args.json)
    return ExitCode.NOT_VERIFIED if any(not check.ok for check in checks) else ExitCode.OK
