"""Options shared by several commands, as argparse parent parsers and small helpers."""

from __future__ import annotations

import argparse
import math
import os
from dataclasses import dataclass
from pathlib import Path

from groundkit.analysis.analyzer import HEADING_WEIGHT, STEMMERS, Analyzer
from groundkit.analysis.languages import LANGUAGES
from groundkit.config import DEFAULT_COLLECTION, DEFAULT_EXCLUDE, DEFAULT_INDEX_DIR, BM25Params
from groundkit.errors import ConfigurationError
from groundkit.vectors.store_registry import available_vector_stores, vector_store_named

__all__ = [
    "SAMPLE_NAME",
    "Parents",
    "analyzer_from",
    "apply_native_options",
    "bm25_options",
    "parents",
    "positive_int",
    "source_path",
    "stemmer_option",
    "vector_store_option",
]

SAMPLE_NAME = "sample"
"""The PATH that means the bundled sample corpus (``./sample`` names a folder)."""


@dataclass(frozen=True, slots=True)
class Parents:
    """The parent parsers a command can take: collection, output (``--json``), native models;
    and the core's argument types a plugin's flags share (a plugin imports no CLI module)."""

    collection: argparse.ArgumentParser
    output: argparse.ArgumentParser
    native: argparse.ArgumentParser

    @staticmethod
    def positive_seconds(text: str) -> float:
        """``type=`` for seconds > 0 (``positive_seconds``)."""
        return positive_seconds(text)

    @staticmethod
    def seconds_or_zero(text: str) -> float:
        """``type=`` for seconds >= 0 (``seconds_or_zero``)."""
        return seconds_or_zero(text)


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected a number >= 1, got {value}")
    return value


def _seconds(text: str, *, zero: bool) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected seconds, got {text!r}") from None
    if not (math.isfinite(value) and (value >= 0 if zero else value > 0)):
        bound = ">= 0" if zero else "> 0"
        raise argparse.ArgumentTypeError(f"expected a finite number of seconds {bound}, got {text}")
    return value


def positive_seconds(text: str) -> float:
    """A finite number of seconds > 0 (``nan``, ``inf``, 0 and negatives are refused)."""
    return _seconds(text, zero=False)


def seconds_or_zero(text: str) -> float:
    """A finite number of seconds >= 0 (``nan``, ``inf`` and negatives are refused)."""
    return _seconds(text, zero=True)


def exclude_options(parser: argparse.ArgumentParser) -> None:
    """``--exclude GLOB`` (repeatable) and ``--no-default-exclude``, read by ``exclude_from``."""
    parser.add_argument(
        "--exclude",
        action="append",
        default=[],
        metavar="GLOB",
        help="also skip files and folders matching GLOB, by name (_drafts, *.min.html) or by "
        "path under PATH (docs/internal, releases/1.*); repeatable. Skipped by default: "
        + ", ".join(DEFAULT_EXCLUDE),
    )
    parser.add_argument(
        "--no-default-exclude",
        action="store_true",
        help="read the folders skipped by default too (" + ", ".join(DEFAULT_EXCLUDE) + ")",
    )


def exclude_from(args: argparse.Namespace) -> tuple[str, ...]:
    """The exclude patterns the flags ask for: the defaults (unless dropped) and each --exclude."""
    defaults = () if args.no_default_exclude else DEFAULT_EXCLUDE
    return tuple(dict.fromkeys([*defaults, *args.exclude]))


def parents() -> Parents:
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
    native = argparse.ArgumentParser(add_help=False)
    group = native.add_argument_group(
        'native models (pip install ".[onnx]"; docs: how-to/native-extras)'
    )
    group.add_argument(
        "--device",
        choices=("cpu", "cuda"),
        default=None,
        help='where ONNX models run (default: cpu; cuda needs pip install ".[gpu]" and fails '
        "rather than falling back)",
    )
    group.add_argument(
        "--threads",
        type=positive_int,
        default=None,
        metavar="N",
        help="CPU threads per ONNX model (default: onnxruntime's choice)",
    )
    return Parents(collection=collection, output=output, native=native)


def _vector_store(name: str) -> str:
    """A vector store's name, refused at once if none is registered or provided by a plugin."""
    try:
        return vector_store_named(name)
    except ConfigurationError as exc:
        raise argparse.ArgumentTypeError(exc.message) from None


def vector_store_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    parser.add_argument(
        "--vector-store",
        type=_vector_store,
        default=None,
        metavar="NAME",
        help=f"{help_text} ({', '.join(available_vector_stores())}; usearch needs "
        'pip install ".[usearch]")',
    )


def stemmer_option(parser: argparse.ArgumentParser, help_text: str) -> None:
    """``--stemmer``, ``--language``, ``--fold-diacritics``, ``--heading-weight``: the
    analyzer's flags."""
    parser.add_argument(
        "--stemmer",
        choices=STEMMERS,
        default=None,
        metavar="NAME",
        help=f"{help_text}: porter, snowball-english, none, or snowball-LANGUAGE (see --language)",
    )
    parser.add_argument(
        "--language",
        default=None,
        metavar="CODE[,CODE...]",
        help="analyze with this language's Snowball stemmer and stop words; several (de,fr): "
        "each document with the language it declares, the first by default (ISO 639-1: de, "
        f'fr, ...; all but en need pip install ".[languages]"): {", ".join(sorted(LANGUAGES))}',
    )
    parser.add_argument(
        "--fold-diacritics",
        action="store_true",
        help="fold accents off every term, so zahne finds Zähne (part of the analyzer identity)",
    )
    parser.add_argument(
        "--heading-weight",
        type=int,
        default=None,
        metavar="N",
        help="times a chunk's page title and section headings count among its terms (default "
        f"{HEADING_WEIGHT}; 0: the chunk's text only; part of the analyzer identity)",
    )


def bm25_options(parser: argparse.ArgumentParser) -> None:
    bm25 = BM25Params()
    parser.add_argument("--k1", type=float, default=bm25.k1, help=f"BM25 k1 (default: {bm25.k1})")
    parser.add_argument("--b", type=float, default=bm25.b, help=f"BM25 b (default: {bm25.b})")


def analyzer_from(args: argparse.Namespace) -> Analyzer | None:
    """The analyzer ``--stemmer``/``--language``/``--fold-diacritics``/``--heading-weight``
    ask for, or None to keep the collection's own (a collection built otherwise then refuses
    it)."""
    fold = bool(getattr(args, "fold_diacritics", False))
    language = getattr(args, "language", None)
    given = getattr(args, "heading_weight", None)
    headings = HEADING_WEIGHT if given is None else given
    if language is not None:
        if args.stemmer is not None:
            raise ConfigurationError("give --language or --stemmer, not both")
        return Analyzer.for_languages(language, fold=fold, headings=headings)
    if args.stemmer is None and not fold and given is None:
        return None
    return Analyzer(stemmer=args.stemmer or "porter", fold=fold, headings=headings)


def source_path(given: str) -> Path:
    """PATH as given, where ``sample`` means the bundled sample corpus."""
    if given != SAMPLE_NAME:
        return Path(given)
    # ingest is imported by the commands using it
    from groundkit.ingestion.collection_ingest import sample_corpus

    return sample_corpus()


def apply_native_options(args: argparse.Namespace) -> None:
    """Hand --device/--threads to the native extras (they read GROUNDKIT_DEVICE/_THREADS)."""
    if getattr(args, "device", None):
        os.environ["GROUNDKIT_DEVICE"] = args.device
    if getattr(args, "threads", None):
        os.environ["GROUNDKIT_THREADS"] = str(args.threads)
