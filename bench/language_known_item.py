"""Languages on real non-English documentation: known items in Debian's translated man pages
(issue 31 item 5d; ADR 0045).

    python bench/language_known_item.py [--languages de fr] [--work DIR] [--max-queries N]
        [--analyses english language fold] [--out bench/results/language_known_item.json]

Source: the manpages-l10n project's Debian packages (``manpages-de``, ``manpages-fr``, ...),
fetched with ``apt-get download`` into ``--work`` (kept there and reused; default a temporary
folder) and unpacked with ``dpkg-deb -x``. Every translated man(7) page is a document: its
troff turned into plain text by ``troff_text`` below (a small deterministic stripper, no
groff), without its NAME section. Symbolic links, ``.so`` redirections and mdoc pages are
left out.

Queries are written by people, not drawn from the target text: the one-line description the
translators wrote in the page's NAME section (``ls - Verzeichnisinhalte auflisten`` gives
``Verzeichnisinhalte auflisten``), never the command's name. A description of one word,
shared by two pages (two right answers), or left in English by the translators
(``looks_english``, by the Snowball vocabularies in ``tests/data/snowball``) is no query.
Queries are taken in the order of the CRC-32 of the page's path (spread over sections and
the alphabet), at most ``--max-queries`` per language (default all: German's 846 take
seconds). "Reworded" queries have a word their page never writes as such (only a stemmer
or folding can match it there); their nDCG@10 is reported apart.

Each language's pages are ingested (whole pages, one chunk each up to 100,000 characters)
into one in-memory collection per analysis: ``english`` (the default analyzer),
``language`` (``--language <code>``) and ``fold`` (``--language <code> --fold-diacritics``).
Every query is searched with BM25; with one relevant page per query, nDCG@10 is
1/log2(rank+1), MRR@10 is 1/rank (0 below rank 10), success@k whether it is in the top k.
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
import re
import statistics
import subprocess
import sys
import tempfile
import time
import unicodedata
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundkit.analysis.analyzer import Analyzer
from groundkit.analysis.languages import LANGUAGES
from groundkit.analysis.snowball_stopwords import SNOWBALL_STOPWORDS
from groundkit.config import ChunkerSettings, IngestSettings
from groundkit.ingestion import Indexer
from groundkit.retrieval import Searcher
from groundkit.store import MemoryStore

PACKAGES: dict[str, tuple[str, str]] = {
    "da": ("manpages-da", "da"),
    "de": ("manpages-de", "de"),
    "es": ("manpages-es", "es"),
    "fi": ("manpages-fi", "fi"),
    "fr": ("manpages-fr", "fr"),
    "hu": ("manpages-hu", "hu"),
    "it": ("manpages-it", "it"),
    "nl": ("manpages-nl", "nl"),
    "pt": ("manpages-pt-br", "pt_BR"),
    "ru": ("manpages-ru", "ru"),
    "sv": ("manpages-sv", "sv"),
}
"""Language code -> (Debian package, folder under usr/share/man): manpages-l10n's packages
with 90 pages or more, in a language groundkit stems (manpages-sr left out: 120 of its 133
descriptions are still English)."""

VOCABULARIES = Path(__file__).resolve().parent.parent / "tests" / "data" / "snowball"
WHOLE_PAGE = ChunkerSettings(target_chars=100_000, overlap_chars=0)
DASH = re.compile(r"\s[-\u2013\u2014]+\s")
WORD = re.compile(r"\w+")

# -- troff to text --------------------------------------------------------------------------

GLYPHS: dict[str, str] = {
    "em": "\u2014", "en": "\u2013", "hy": "-", "mi": "-", "aq": "'", "dq": '"',
    "lq": "\u201c", "rq": "\u201d", "oq": "\u2018", "cq": "\u2019", "Fo": "\u00ab",
    "Fc": "\u00bb", "fo": "\u2039", "fc": "\u203a", "bu": "\u2022", "co": "\u00a9",
    "rg": "\u00ae", "tm": "\u2122", "mu": "\u00d7", "di": "\u00f7", "de": "\u00b0",
    "pl": "+", "eq": "=", "ti": "~", "ha": "^", "rs": "\\", "sl": "/", "ba": "|",
    "bv": "|", "at": "@", "sh": "#", "Do": "$", "Eu": "\u20ac", "sc": "\u00a7",
    "ps": "\u00b6", "dg": "\u2020", "+-": "\u00b1", "<=": "\u2264", ">=": "\u2265",
    "!=": "\u2260", "->": "\u2192", "<-": "\u2190", "ua": "\u2191", "da": "\u2193",
    "lB": "[", "rB": "]", "lC": "{", "rC": "}", "la": "\u27e8", "ra": "\u27e9",
    "ga": "`", "aa": "\u00b4", "ss": "\u00df", "R": "\u00ae", "Tm": "\u2122", "Aq": "'",
}  # fmt: skip
"""groff's names of the glyphs man pages use (groff_char(7)); unknown names give nothing."""
ACCENTS = {":": "\u0308", "'": "\u0301", "`": "\u0300", "^": "\u0302", ",": "\u0327", "~": "\u0303"}
"""``\\(:a`` and the like: a letter and a combining accent (composed with NFC)."""

# One escape: \X, \(xx, \[name], \*..., \f..., \s..., \n..., or \X'delimited'.
ESCAPE = re.compile(
    r"""\\(?:
        (?P<comment>".*)
      | (?P<quoted>[hvwlLDXoNbxZACBR])(?P<delim>.)(?P<body>.*?)(?P=delim)
      | [*fFnmMgkY](?:\(..|\[[^\]]*\]|[+-]?.)
      | s(?:[+-]?\d\d?|[+-]?\(\d\d|\[[^\]]*\]|'[^']*')
      | \((?P<two>..)
      | \[(?P<name>[^\]]*)\]
      | (?P<one>.)
    )""",
    re.VERBOSE,
)
SPACES = {" ", "~", "0", "t", "|", "^"}
"""``\\ ``, ``\\~``, ``\\0`` and ``\\t`` are spaces; ``\\|`` and ``\\^`` thin ones (a space
keeps ``foo\\|bar`` as two words, which troff prints apart)."""
LITERAL = {"-": "-", "e": "\\", "\\": "\\", "'": "\u00b4", "`": "`", ".": "."}
TEXT_MACROS = {"B", "I", "SM", "SB", "SH", "SS", "UR", "UE", "MT", "ME", "SY", "OP"}
ALTERNATING = {"BR", "RB", "BI", "IB", "IR", "RI"}
SKIPPED_BLOCKS = {"de": ".", "de1": ".", "am": ".", "am1": ".", "ig": ".", "EQ": "EN", "PS": "PE"}
"""Requests whose block is skipped -> the request that ends it (``..`` ends a macro)."""


def _glyph(name: str) -> str:
    if name in GLYPHS:
        return GLYPHS[name]
    if len(name) == 2 and name[0] in ACCENTS and name[1].isalpha():
        return unicodedata.normalize("NFC", name[1] + ACCENTS[name[0]])
    if name.startswith(("u", "char")):  # \[u00E4], \[u0061_0308], \[char228]
        try:
            if name.startswith("char"):
                return chr(int(name[4:]))
            return unicodedata.normalize(
                "NFC", "".join(chr(int(c, 16)) for c in name[1:].split("_"))
            )
        except ValueError:
            return ""
    return ""


def expand_escapes(line: str, strings: dict[str, str]) -> str:
    """``line`` with troff's escapes replaced by the text they print (fonts, sizes, motions
    and registers print nothing; ``\\*`` gives a string defined with ``.ds``)."""

    def replace(match: re.Match[str]) -> str:
        whole = match.group(0)
        if match.group("comment") is not None:
            return ""
        if match.group("quoted") is not None:
            return _glyph(match.group("body")) if match.group("quoted") == "C" else ""
        if match.group("two") is not None:
            return _glyph(match.group("two"))
        if match.group("name") is not None:
            return _glyph(match.group("name"))
        one = match.group("one")
        if one is not None:
            if one in SPACES:
                return " "
            return LITERAL.get(one, "" if one.isascii() and not one.isalnum() else one)
        if whole[1] == "*":
            name = whole[2:].strip("[]")
            name = name[1:] if name.startswith("(") else name
            value = strings.get(name, GLYPHS.get(name, ""))
            return expand_escapes(value, {}) if "\\" in value else value
        return ""  # \f fonts, \s sizes, \n registers, \m \M colours, \k marks, \g, \Y

    return ESCAPE.sub(replace, line)


def _arguments(rest: str) -> list[str]:
    """A request's arguments: blank-separated, ``"`` groups (``""`` inside is a quote)."""
    found: list[str] = []
    at = 0
    while at < len(rest):
        while at < len(rest) and rest[at] in " \t":
            at += 1
        if at >= len(rest):
            break
        if rest[at] == '"':
            at += 1
            word: list[str] = []
            while at < len(rest):
                if rest[at] == '"':
                    if rest[at + 1 : at + 2] == '"':
                        word.append('"')
                        at += 2
                        continue
                    at += 1
                    break
                word.append(rest[at])
                at += 1
            found.append("".join(word))
        else:
            end = at
            while end < len(rest) and rest[end] not in " \t":
                end += 1 if rest[end] != "\\" else 2
            found.append(rest[at:end])
            at = end
    return found


def _logical_lines(source: str) -> Iterator[str]:
    """The lines of ``source``, a line ending in an escaped newline joined to the next."""
    pending = ""
    for raw in source.splitlines():
        tail = len(raw) - len(raw.rstrip("\\"))
        if tail % 2 == 1:
            pending += raw[:-1]
            continue
        yield pending + raw
        pending = ""
    if pending:
        yield pending


@dataclass(frozen=True)
class ManPage:
    """A page as text: its NAME section's text and the rest (headings kept)."""

    name_section: str
    body: str


def troff_text(source: str) -> ManPage:
    """The text a man(7) page prints, as plain lines, split at its first section.

    Requests that only lay out (``.PP``, ``.TP``, ``.RS``, ``.nf``, ``.TH`` ...) print nothing;
    the text macros (``.B``, ``.BR``, ``.SH``, ``.IP`` tag ...) print their arguments; tables
    (tbl) print their cells; macro definitions, ``.ig`` and equations are skipped; conditional
    requests (``.if``, ``.ie``, ``.el``) are dropped whole (man pages use them to define
    strings). Deterministic: the same source gives the same text on every machine."""
    strings: dict[str, str] = {}
    sections: list[list[str]] = [[]]
    skip_until: str | None = None
    table: str | None = None  # None outside .TS, "format" in its head, else the tab char
    for line in _logical_lines(source):
        control = line[:1] in {".", "'"}
        request = line[1:].lstrip(" \t") if control else ""
        name, _, rest = request.partition(" ")
        name = name.split("\t", 1)[0]
        if skip_until is not None:
            skip_until = None if control and name == skip_until else skip_until
            continue
        if table is not None:
            if control and name == "TE":
                table = None
            elif table.startswith("format"):
                tab = re.search(r"tab\s*\((.)\)", line)
                if tab:
                    table = "format" + tab.group(1)
                if line.rstrip().endswith("."):
                    table = table[6:] or "\t"
            elif not control and line.strip() not in {"_", "="}:
                cells = line.replace("T{", "").replace("T}", "").split(table)
                text = " ".join(c.strip() for c in cells if c.strip())
                if text:  # a row's cells, one line (``T{`` ``T}`` hold a cell's lines)
                    sections[-1].append(expand_escapes(text, strings))
            continue
        if not control:
            sections[-1].append(expand_escapes(line, strings))
            continue
        if name.startswith(('\\"', "\\}")) or not name:
            continue
        if name in SKIPPED_BLOCKS:
            skip_until = SKIPPED_BLOCKS[name]
            continue
        if name == "TS":
            table = "format"
            continue
        if name == "ds":
            key, _, value = rest.lstrip().partition(" ")
            strings[key] = value.lstrip().removeprefix('"')
            continue
        arguments = [expand_escapes(a, strings) for a in _arguments(rest)]
        if name == "SH":
            sections.append([" ".join(arguments)] if arguments else [])
        elif name == "SS":
            sections[-1] += ["", " ".join(arguments)]
        elif name in TEXT_MACROS:
            sections[-1].append(" ".join(arguments))
        elif name in ALTERNATING:
            sections[-1].append("".join(arguments))
        elif name == "IP" and arguments:
            sections[-1].append(arguments[0])
        elif name in {"PP", "P", "LP", "TP", "IP", "sp", "br"}:
            sections[-1].append("")
    texts = ["\n".join(lines).strip() for lines in sections]
    first, *rest_sections = texts[1:] or [""]
    heading, _, name_text = first.partition("\n")
    body = "\n\n".join(text for text in rest_sections if text)
    return ManPage(name_section=name_text.strip() or heading, body=body)


def description(name_section: str) -> str | None:
    """What a NAME section says after the dash (``ls - list files`` -> ``list files``)."""
    flat = " ".join(name_section.split())
    parts = DASH.split(flat, maxsplit=1)
    return parts[1].strip() if len(parts) == 2 and parts[1].strip() else None


def _vocabulary(algorithm: str) -> frozenset[str]:
    """The words of Snowball's vocabulary for ``algorithm`` (``tests/data/snowball``, packed
    ``word[<TAB>stem]``) and its stop words."""
    path = VOCABULARIES / f"{algorithm}.txt.gz"
    with gzip.open(path, "rt", encoding="utf-8") as handle:
        words = {line.partition("\t")[0] for line in handle.read().splitlines()}
    return frozenset(words | set(SNOWBALL_STOPWORDS.get(algorithm, "").split()))


def looks_english(text: str, english: frozenset[str], own: frozenset[str]) -> bool:
    """Whether a description was left untranslated: at least half its blank-separated words
    (those without digits) are English words and not words of the page's language, by the
    Snowball vocabularies (``Socket-Unit-Konfiguration`` counts only if every part does).

    manpages-l10n ships a page once most of it is translated, so some NAME lines stay in
    English (``compute and check SHA1 message digest`` in Serbian); those are no queries in
    the language. A heuristic: a few genuine two-word descriptions (``Threads POSIX``) go
    too."""
    words = [[part.casefold() for part in WORD.findall(word)] for word in text.split()]
    words = [parts for parts in words if parts and not any(c.isdigit() for p in parts for c in p)]
    foreign = sum(all(p in english and p not in own for p in parts) for parts in words)
    return bool(words) and foreign >= len(words) / 2


# -- the data ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Corpus:
    language: str
    package: str
    version: str
    documents: dict[str, str]
    queries: dict[str, str]
    """Known item's source -> its query."""
    counts: dict[str, int]
    untranslated: dict[str, str]
    """Descriptions left in English by the translators (``looks_english``): no queries."""
    reworded: list[str]
    """The queries with a word (no stop word, no digit) found nowhere in their page as
    written: those that only a stemmer (or folding) can match there."""


def _log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def _unpacked(package: str, work: Path) -> tuple[Path, str]:
    """The package unpacked under ``work`` (downloaded there first), and its version."""
    debs = sorted(work.glob(f"{package}_*_all.deb"))
    if not debs:
        _log(f"apt-get download {package}")
        done = subprocess.run(
            ["apt-get", "download", package], check=False, cwd=work, capture_output=True, text=True
        )
        debs = sorted(work.glob(f"{package}_*_all.deb"))
        if done.returncode != 0 or not debs:
            sys.exit(f"apt-get download {package} failed: {done.stderr.strip()[-500:]}")
    deb = debs[-1]
    target = work / "unpacked" / deb.stem
    if not target.exists():  # unpacked beside, then renamed: no half-unpacked folder is reused
        partial = target.with_name(target.name + ".partial")
        partial.mkdir(parents=True, exist_ok=True)
        subprocess.run(["dpkg-deb", "-x", str(deb), str(partial)], check=True)
        partial.rename(target)
    version = subprocess.run(
        ["dpkg-deb", "-f", str(deb), "Version"], check=True, capture_output=True, text=True
    ).stdout.strip()
    return target, version


def load_corpus(language: str, work: Path, max_queries: int) -> Corpus:
    package, folder = PACKAGES[language]
    root, version = _unpacked(package, work)
    man = root / "usr" / "share" / "man" / folder
    counts = {"files": 0, "links": 0, "redirects": 0, "mdoc": 0, "no_description": 0}
    documents: dict[str, str] = {}
    described: dict[str, str] = {}
    for path in sorted(man.glob("man*/*.gz")):
        counts["files"] += 1
        if path.is_symlink():
            counts["links"] += 1
            continue
        source = gzip.decompress(path.read_bytes()).decode("utf-8", errors="replace")
        if re.search(r"^\.so\s", source, re.MULTILINE):
            counts["redirects"] += 1
            continue
        if re.search(r"^\.(Dd|Sh)\s", source, re.MULTILINE):
            counts["mdoc"] += 1
            continue
        page = troff_text(source)
        name = path.relative_to(man).as_posix().removesuffix(".gz") + ".txt"
        documents[name] = page.body
        found = description(page.name_section)
        if found is None:
            counts["no_description"] += 1
        else:
            described[name] = found
    english, own = _vocabulary("english"), _vocabulary(LANGUAGES[language])
    untranslated = {n: t for n, t in described.items() if looks_english(t, english, own)}
    counts["untranslated"] = len(untranslated)
    described = {n: t for n, t in described.items() if n not in untranslated}
    by_text: dict[str, list[str]] = {}
    for name, text in described.items():
        by_text.setdefault(" ".join(text.casefold().split()), []).append(name)
    counts["shared_description"] = sum(len(n) for n in by_text.values() if len(n) > 1)
    counts["one_word"] = sum(len(WORD.findall(t)) < 2 for t in described.values())
    usable = [
        name
        for name, text in described.items()
        if len(WORD.findall(text)) >= 2 and len(by_text[" ".join(text.casefold().split())]) == 1
    ]
    usable.sort(key=lambda name: (zlib.crc32(name.encode()), name))
    chosen = usable[:max_queries] if max_queries > 0 else usable
    counts["usable_queries"] = len(usable)
    return Corpus(
        language=language,
        package=package,
        version=version,
        documents=documents,
        queries={name: described[name] for name in sorted(chosen)},
        counts=counts,
        untranslated=untranslated,
        reworded=[n for n in sorted(chosen) if _reworded(described[n], documents[n], language)],
    )


def _reworded(query: str, page: str, language: str) -> bool:
    stop = set(SNOWBALL_STOPWORDS.get(LANGUAGES[language], "").split())
    written = {word.casefold() for word in WORD.findall(page)}
    words = {w.casefold() for w in WORD.findall(query) if not any(c.isdigit() for c in w)}
    return bool(words - stop - written)


# -- measuring --------------------------------------------------------------------------------


def analyzer_for(analysis: str, language: str) -> Analyzer:
    if analysis == "english":
        return Analyzer()
    return Analyzer.for_language(language, fold=analysis == "fold")


def measure(corpus: Corpus, analysis: str) -> dict[str, Any]:
    """Ingest the corpus with one analysis, search every query; the metrics and ranks."""
    analyzer = analyzer_for(analysis, corpus.language)
    store = MemoryStore(f"{corpus.language}-{analysis}")
    settings = IngestSettings(chunker=WHOLE_PAGE, extensions=(".txt",))
    started = time.perf_counter()
    with tempfile.TemporaryDirectory() as root:  # no file is read: texts come from memory
        Indexer(store, analyzer=analyzer, settings=settings).ingest_texts(
            root, sorted(corpus.documents.items())
        )
    ingest_s = time.perf_counter() - started
    ranks: dict[str, int | None] = {}
    with Searcher.of(store.reader()) as retriever:
        for source, query in corpus.queries.items():
            seen: list[str] = []
            for hit in retriever.search(query, top_k=50, mode="bm25", highlight=False).results:
                if hit.source not in seen:
                    seen.append(hit.source)
            ranks[source] = seen.index(source) + 1 if source in seen[:10] else None
    store.close()
    found = [r for r in ranks.values() if r is not None]
    count = len(ranks)
    reworded = [ranks[s] for s in corpus.reworded]
    return {
        "identity": {k: v for k, v in analyzer.identity.items() if k != "release"},
        "ndcg@10": _ndcg(list(ranks.values())),
        "ndcg@10_reworded": _ndcg(reworded),
        "mrr@10": round(sum(1 / r for r in found) / count, 4),
        "success@1": round(sum(r == 1 for r in found) / count, 4),
        "success@10": round(len(found) / count, 4),
        "median_rank_found": statistics.median(found) if found else None,
        "ingest_s": round(ingest_s, 1),
        "ranks": ranks,
    }


def _ndcg(ranks: list[int | None]) -> float:
    """Mean nDCG@10 with one relevant page: 1/log2(rank+1), 0 outside the top 10."""
    return round(sum(1 / math.log2(r + 1) for r in ranks if r) / max(len(ranks), 1), 4)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0],
        epilog="Needs apt-get and dpkg-deb (Debian, Ubuntu) for the data and the languages "
        'extra (pip install ".[languages]") for the stemmers. See the module docstring.',
    )
    parser.add_argument(
        "--languages", nargs="+", default=["de", "fr"], choices=sorted(PACKAGES),
        help="languages to measure (default: de fr)",
    )  # fmt: skip
    parser.add_argument(
        "--work", type=Path, default=None,
        help="folder for the downloaded .deb packages, kept and reused (default: a temporary one)",
    )  # fmt: skip
    parser.add_argument(
        "--max-queries", type=int, default=0,
        help="queries per language at most, in CRC-32 order of the page path (default 0: all)",
    )  # fmt: skip
    parser.add_argument(
        "--analyses", nargs="+", default=["english", "language", "fold"],
        choices=["english", "language", "fold"],
        help="english: the default analyzer; language: --language <code>; "
        "fold: --language <code> --fold-diacritics (default: all three)",
    )  # fmt: skip
    parser.add_argument(
        "--out", type=Path, default=Path("bench/results/language_known_item.json"),
        help="the JSON report (default: bench/results/language_known_item.json)",
    )  # fmt: skip
    parser.add_argument("--ranks", action="store_true", help="keep every query's rank in the JSON")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        work = args.work or Path(scratch)
        work.mkdir(parents=True, exist_ok=True)
        report = run(args.languages, args.analyses, work, args.max_queries, args.ranks)
    print(table(report, args.analyses))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")
    _log(f"wrote {args.out}")


def run(
    languages: list[str], analyses: list[str], work: Path, max_queries: int, keep_ranks: bool
) -> dict[str, Any]:
    report: dict[str, Any] = {
        "command": " ".join(["python", *sys.argv]),
        "source": "Debian bookworm, manpages-l10n packages (apt-get download)",
        "languages": {},
    }
    for language in languages:
        corpus = load_corpus(language, work, max_queries)
        _log(
            f"{language}: {corpus.package} {corpus.version}, {len(corpus.documents)} pages, "
            f"{len(corpus.queries)} queries"
        )
        results: dict[str, Any] = {}
        for analysis in analyses:
            results[analysis] = measure(corpus, analysis)
            _log(
                f"  {analysis:8} nDCG@10 {results[analysis]['ndcg@10']:.4f} "
                f"(ingest {results[analysis]['ingest_s']} s)"
            )
        entry: dict[str, Any] = {
            "package": corpus.package,
            "version": corpus.version,
            "pages": len(corpus.documents),
            "queries": len(corpus.queries),
            "reworded_queries": len(corpus.reworded),
            "counts": corpus.counts,
            "examples": [[s, corpus.queries[s]] for s in list(corpus.queries)[:5]],
            "untranslated": corpus.untranslated,
            "results": results,
        }
        if "english" in results and results["english"]["ndcg@10"] > 0:
            english = results["english"]
            entry["ndcg@10_over_english"] = {
                a: round(results[a]["ndcg@10"] / english["ndcg@10"], 3)
                for a in analyses
                if a != "english"
            }
            entry["queries_higher_lower_than_english"] = {
                a: _higher_lower(results[a]["ranks"], english["ranks"])
                for a in analyses
                if a != "english"
            }
        if not keep_ranks:
            for found in results.values():
                del found["ranks"]
        report["languages"][language] = entry
    return report


def _higher_lower(ranks: dict[str, int | None], english: dict[str, int | None]) -> list[int]:
    """How many queries find their page higher, and how many lower, than with English
    (rank 11 standing for "not in the top 10")."""
    pairs = [(ranks[s] or 11, english[s] or 11) for s in ranks]
    return [sum(a < b for a, b in pairs), sum(a > b for a, b in pairs)]


def table(report: dict[str, Any], analyses: list[str]) -> str:
    rows = [
        "| language | package | pages | queries | analysis | nDCG@10 | MRR@10 | success@1 "
        "| success@10 | nDCG ÷ English | higher / lower than English "
        "| reworded: queries, nDCG@10 |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for language, entry in report["languages"].items():
        for analysis in analyses:
            found = entry["results"][analysis]
            ratio = entry.get("ndcg@10_over_english", {}).get(analysis, 1.0)
            moved = entry.get("queries_higher_lower_than_english", {}).get(analysis)
            shift = f"{moved[0]} / {moved[1]}" if moved else "-"
            rows.append(
                f"| {language} | {entry['package']} {entry['version']} | {entry['pages']} "
                f"| {entry['queries']} | {analysis} | {found['ndcg@10']:.3f} "
                f"| {found['mrr@10']:.3f} | {found['success@1']:.3f} "
                f"| {found['success@10']:.3f} | {ratio:.3f} | {shift} "
                f"| {entry['reworded_queries']}, {found['ndcg@10_reworded']:.3f} |"
            )
    return "\n".join(rows)


if __name__ == "__main__":
    main()
