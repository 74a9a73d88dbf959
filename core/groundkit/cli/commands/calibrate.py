"""``groundkit calibrate``: measure (or set) a collection's dense similarity floor (adr/0024)."""

from __future__ import annotations

import argparse
from typing import Any

from groundkit.cli.exits import ExitCode
from groundkit.cli.options import Parents, vector_store_option
from groundkit.cli.render import emit_json
from groundkit.embedding.embedder_registry import resolve_embedder
from groundkit.errors import ConfigurationError
from groundkit.retrieval import Searcher
from groundkit.retrieval.floor import FloorRecord, check_floor, write_floor

__all__ = ["NAME", "add_parser", "run"]

NAME = "calibrate"

EPILOG = """\
examples:
  groundkit calibrate --self --write                  # the collection calibrates itself
  groundkit calibrate --collection sem --queries my-questions.txt --off-topic other-topics.txt
  groundkit calibrate --collection beir-scifact --index-dir runs \\
      --queries ../shared/data/beir/scifact --off-topic ../shared/data/beir/cranfield --write
  groundkit calibrate --collection sem --set 0.3      # record a floor of your own choosing

--self: the collection measures itself: on-topic queries sampled from its own chunks,
off-topic ones from a general multilingual question set shipped with groundkit; each bar is
the lowest that lets through at most its allowance of the off-topic questions: bm25's
lexical bar 5% (applied only where at most 10% of the on-topic ones fall under it) and, with
a semantic embedder, the floor and hybrid's lexical share 2.5% together. --write records them
(lexical-bar.json, and dense-floor.json), and each search's metadata names the source
(self-calibrated); docs: explanation/hybrid-and-abstention.
"""


def add_parser(commands: Any, parents: Parents) -> None:
    parser = commands.add_parser(
        NAME,
        parents=[parents.collection, parents.output, parents.native],
        help="measure or set where search says nothing is here (bm25's bar, the dense floor)",
        description=(
            "With --self, the collection measures where each mode says nothing is here, on its "
            "own passages and questions shipped with groundkit (every ingest does this). With "
            "--queries and --off-topic (a collection with a dense side), search with on-topic "
            "queries (it can answer them) and off-topic ones (it cannot), take each query's "
            "best dense similarity, and report the floor that minimises false abstentions plus "
            "false answers, with both rates. --write records what was measured."
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--queries", metavar="QUERIES", help="on-topic queries")
    parser.add_argument("--off-topic", metavar="OFF_TOPIC", help="off-topic queries")
    parser.add_argument(
        "--self",
        dest="self_calibrate",
        action="store_true",
        help="calibrate on the collection's own pseudo queries (no query files needed)",
    )
    parser.add_argument(
        "--write", action="store_true", help="record the measured floor for the collection"
    )
    parser.add_argument(
        "--set",
        type=float,
        default=None,
        metavar="X",
        help="record X as the floor (with --queries/--off-topic: also report its rates)",
    )
    parser.add_argument(
        "--embedder",
        default=None,
        metavar="NAME|DIR",
        help="embedder for the queries (default: the registered one the collection records)",
    )
    vector_store_option(parser, "vector store for the queries (default: the collection's)")


def run(args: argparse.Namespace) -> ExitCode:
    from groundkit.evaluation.floor_calibration import Calibration, calibrate, load_queries

    if args.self_calibrate:
        return _run_self(args)
    measuring = args.queries is not None or args.off_topic is not None
    if measuring and (args.queries is None or args.off_topic is None):
        raise ConfigurationError("--queries and --off-topic go together")
    if not measuring and args.set is None:
        raise ConfigurationError(
            "give --self to calibrate the collection on its own passages (what every ingest "
            "does), --queries and --off-topic to measure a dense floor on your questions, or "
            "--set X to record one"
        )
    chosen = None if args.set is None else check_floor(args.set)
    with _open(args) as retriever:
        location = retriever.reader.location
        embedder = retriever.embedder
        if embedder is None:
            raise ConfigurationError(
                f"collection {args.collection} has no dense side (ingested without --embedder); "
                "a similarity floor applies to dense and hybrid search only"
            )
        if chosen is not None and embedder.identity.similarity == "cosine":
            _check_cosine_floor(chosen)
        result: Calibration | None = None
        if measuring:
            result = calibrate(retriever, load_queries(args.queries), load_queries(args.off_topic))
    report: dict[str, Any] = {} if result is None else result.to_dict()
    recorded = None
    if chosen is not None:
        record = FloorRecord(chosen, embedder.identity, {"set_by": "user"})
        if result is not None:
            abstain, answer = result.rates(chosen)
            report.update(floor=chosen, false_abstention=round(abstain, 4))
            report["false_answer"] = round(answer, 4)
        recorded = write_floor(location, record)
    elif result is not None and args.write:
        recorded = write_floor(location, result.record())
    report["recorded"] = None if recorded is None else str(recorded)
    if chosen is not None and result is None:
        report.update(floor=chosen, embedding=embedder.identity.to_dict())
    if args.json:
        emit_json(report)
        return ExitCode.OK
    print(f"floor {report['floor']}")
    if result is not None:
        print(
            f"false abstention {report['false_abstention']:.2%} of "
            f"{len(result.on_topic)} on-topic queries; false answer "
            f"{report['false_answer']:.2%} of {len(result.off_topic)} off-topic queries"
        )
        for name in ("on_topic", "off_topic"):
            summary = report[name]
            shown = ", ".join(f"{k} {v}" for k, v in summary.items() if k != "queries")
            print(f"{name.replace('_', '-')} best similarity: {shown}")
        if "lexical_share" in report:
            print(
                f"hybrid: lexical share {report['lexical_share']} for queries under the floor; "
                f"false abstention {report['hybrid_false_abstention']:.2%}, false answer "
                f"{report['hybrid_false_answer']:.2%}"
            )
    print(
        f"recorded in {recorded}"
        if recorded
        else "not recorded (add --write to record it, or --set X to record your own)"
    )
    return ExitCode.OK


def _run_self(args: argparse.Namespace) -> ExitCode:
    """``calibrate --self``: the collection's own calibration of every mode (adr/0060)."""
    from groundkit.evaluation.self_calibration import record_self_calibration, self_calibrate

    if args.queries is not None or args.off_topic is not None or args.set is not None:
        raise ConfigurationError("--self measures on the collection's own queries; leave out "
                                 "--queries, --off-topic and --set")  # fmt: skip
    with _open(args) as retriever:
        result = self_calibrate(retriever)
        written = record_self_calibration(retriever, result) if args.write else []
    report = result.to_dict()
    recorded = [str(path) for path in written]
    report["recorded"] = recorded
    if args.json:
        emit_json(report)
        return ExitCode.OK
    bm25 = report["bm25"]
    measured, queries = bm25["measured"], bm25["measured"]["queries"]
    applied = "applied" if bm25["separates"] else "not applied: it does not separate"
    print(f"bm25: lexical share {bm25['share']} ({applied})")
    print(
        f"  false abstention {measured['false_abstention']:.2%} of {queries['on_topic']} pseudo "
        f"on-topic queries, false answer {measured['false_answer']:.2%} of "
        f"{queries['off_topic']} off-topic questions"
    )
    if result.floor is not None:
        floor = result.floor
        rates = floor.measured or {}
        print(f"dense and hybrid: floor {floor.floor}, hybrid lexical share {floor.lexical_share}")
        print(
            f"  hybrid: false abstention {rates['hybrid_false_abstention']:.2%}, false answer "
            f"{rates['hybrid_false_answer']:.2%} of the same queries"
        )
    print(f"recorded in {', '.join(recorded)}" if recorded else "not recorded (add --write)")
    return ExitCode.OK


def _open(args: argparse.Namespace) -> Searcher:
    """The collection ``args`` name, with the embedder and vector store they ask for."""
    return Searcher.open(
        args.index_dir,
        args.collection,
        embedder=None if args.embedder is None else resolve_embedder(args.embedder),
        vector_store=args.vector_store,
    )


def _check_cosine_floor(floor: float) -> None:
    """Refuse a floor a user sets for cosine similarities outside -1 to 1: over 1 every dense
    search says nothing here, under -1 none does (a measured one may sit just over the
    highest similarity seen, and is recorded as measured)."""
    if not -1.0 <= floor <= 1.0:
        raise ConfigurationError(
            f"a floor of {floor!r} for cosine similarities (-1 to 1) would make every dense "
            "search say nothing here, or none: set one from -1 to 1",
            subject=str(floor),
        )
