"""Everything the command prints: JSON, progress, search results, summaries."""

from __future__ import annotations

import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from groundkit.contracts import Citation, SearchResult
from groundkit.responses import SearchResponse
from groundkit.retrieval.citations import Verification
from groundkit.retrieval.highlight import snippet as cut_snippet

if TYPE_CHECKING:
    from groundkit.ingestion import IngestProgress

__all__ = [
    "ProgressBar",
    "emit_json",
    "print_search",
    "print_table",
    "search_json",
    "show_search",
    "snippet",
]


def emit_json(value: Any) -> None:
    json.dump(value, sys.stdout, ensure_ascii=False, indent=2)
    sys.stdout.write("\n")


class ProgressBar:
    """Progress of a long ingest on stderr: a redrawn bar on a terminal; elsewhere (a log, a
    pipe, CI) a plain line every ``interval`` seconds with the rate and the time left."""

    def __init__(
        self,
        stream: TextIO,
        enabled: bool,
        *,
        interval: float = 10.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self._stream = stream
        self._enabled = enabled
        self._terminal = stream.isatty()
        self._interval = interval
        self._clock = clock
        self._started = clock()
        self._last_line = self._started

    def __call__(self, event: IngestProgress) -> None:
        if not self._enabled:
            return
        if self._terminal:
            self._draw(event)
            return
        now = self._clock()
        finished = event.done == event.total and now - self._started >= self._interval
        if now - self._last_line < self._interval and not finished:
            return
        self._last_line = now
        elapsed = now - self._started
        rate = event.done / elapsed if elapsed > 0 else 0.0
        left = (event.total - event.done) / rate if rate > 0 else 0.0
        self._stream.write(
            f"groundkit: {event.done}/{event.total} files ({rate:.1f}/s, "
            f"{elapsed:.0f} s elapsed, ~{left:.0f} s left)\n"
        )
        self._stream.flush()

    def _pace(self, event: IngestProgress) -> str:
        """``2.5 files/s, ~12 s left`` once a file is done (the rate so far); blank before."""
        elapsed = self._clock() - self._started
        if event.done == 0 or elapsed <= 0:
            return ""
        rate = event.done / elapsed
        left = (event.total - event.done) / rate
        return f"{rate:.1f} files/s, ~{_duration(left)} left"

    def _draw(self, event: IngestProgress) -> None:
        width = 30
        filled = width * event.done // max(event.total, 1)
        name = event.source if len(event.source) <= 32 else "…" + event.source[-31:]
        self._stream.write(
            f"\r[{'#' * filled}{'.' * (width - filled)}] {event.done}/{event.total} "
            f"{self._pace(event):<22} {name:<32}"
        )
        if event.done == event.total:
            self._stream.write("\n")
        self._stream.flush()


def _duration(seconds: float) -> str:
    """``42 s``, ``3 min 05 s``, ``1 h 02 min``."""
    whole = round(seconds)
    if whole < 60:
        return f"{whole} s"
    if whole < 3600:
        return f"{whole // 60} min {whole % 60:02d} s"
    return f"{whole // 3600} h {whole % 3600 // 60:02d} min"


def snippet(result: SearchResult, bold: bool = False) -> str:
    """The part of the passage around its matched words on one line (``groundkit.snippet``),
    the words in bold when ``bold`` (a terminal)."""
    window = cut_snippet(result.content, result.highlights)
    return window.render("\033[1m", "\033[0m") if bold else window.render()


def _pages(citation: Citation) -> str:
    if citation.start_page is None:
        return ""
    if citation.start_page == citation.end_page:
        return f" (p. {citation.start_page})"
    return f" (pp. {citation.start_page}-{citation.end_page})"


def calibrated_message(calibration: dict[str, Any]) -> str:
    """One line on what the ingest's self-calibration recorded (adr/0072)."""
    bar = calibration["bm25"]
    state = "applied" if bar["separates"] else "not applied: it does not separate"
    line = f'calibrated "nothing here": bm25 lexical share {bar["share"]} ({state})'
    hybrid = calibration.get("hybrid")
    if hybrid is not None:
        line += f"; dense floor {hybrid['floor']}, hybrid lexical share {hybrid['lexical_share']}"
    return line


def nothing_found(response: SearchResponse) -> str:
    """Why a search has no result: nothing matched, or the collection says "nothing here"
    (its evidence under the bar it applies, adr/0060, adr/0072, or a name it lacks, adr/0080)."""
    meta = response.metadata
    admitted = (meta.get("filter") or {}).get("chunks")
    if admitted == 0:
        return f"no results for {response.query!r}: the filter admits no passage"
    if meta.get("query_terms") == 0 and meta.get("mode") == "bm25":
        return (
            f"no results for {response.query!r}: it has no word to search for (every word is "
            "a stopword or too short)"
        )
    if not meta.get("abstained"):
        return f"no results for {response.query!r}"
    why = []
    if meta.get("dense_best") is not None or "min_similarity" in meta:
        best = meta.get("dense_best")
        similar = "nothing" if best is None else f"{best:.3f}"
        why.append(
            f"best similarity {similar}, under the {meta.get('floor_source')} floor "
            f"{meta['min_similarity']:.3f}"
        )
    fusion, bar = meta.get("fusion") or {}, meta.get("lexical_bar") or {}
    minimum = fusion.get("min_lexical_share", bar.get("min_lexical_share"))
    if minimum is not None:
        source = fusion.get("lexical_share_source", bar.get("source"))
        share = meta.get("lexical_share") or 0.0
        why.append(f"lexical share {share:.3f}, under the {source} bar {minimum:.3f}")
    anyway = {"bm25": "--lexical-bar 0", "hybrid": "--min-lexical-share 0"}.get(meta["mode"])
    cut = meta.get("score_threshold") is not None  # the cut may take every match
    hint = "" if cut else f" {anyway} shows what matched anyway;"
    name = meta.get("absent_name")
    if name is not None:  # its share reached the bar (adr/0080)
        return (
            f"nothing here for {response.query!r}: it names {name!r}, which no passage holds "
            f"(lexical share {meta['lexical_share']:.3f});{hint} "
            "see docs/explanation/hybrid-and-abstention.md"
        )
    matched = minimum is not None and 0 < (meta.get("lexical_share") or 0.0) < minimum
    return (
        f"nothing here for {response.query!r}: no passage holds enough of it ({'; '.join(why)});"
        + (hint if anyway and matched else "")
        + " see docs/explanation/hybrid-and-abstention.md"
    )


def print_search(response: SearchResponse, checks: Sequence[Verification]) -> None:
    """Ranked results as lines: source, line span, offsets, score, verdict, heading, snippet."""
    bold = sys.stdout.isatty() and "NO_COLOR" not in os.environ
    if not response.results:
        print(nothing_found(response))
    expansions = response.metadata.get("expansions") or {}
    for kind, label in (("fuzzy", "a typo away"), ("prefix", "it begins")):
        for word, terms in expansions.get(kind, {}).items():
            more = f", … ({len(terms)} in all)" if len(terms) > 5 else ""
            shown = ", ".join(terms[:5])
            print(f"{word!r} also matched the indexed terms (stems) {label}: {shown}{more}")
    roots = {result.metadata.get("root") for result in response.results}
    if response.groups is None:
        for rank, result in enumerate(response.results, start=1):
            verdict = f"  [{checks[rank - 1].verdict}]" if checks else ""
            _print_passage(f"{rank:>2}. ", result, roots, verdict, bold)
        return
    at = 0
    for rank, group in enumerate(response.groups, start=1):
        where = _where(group.results[0], roots)
        count = len(group.results)
        passages = f"{count} passage{'s' * (count > 1)}"
        print(f"{rank:>2}. {where}  page score {group.score:.4f}  ({passages})")
        for result in group.results:
            verdict = f"  [{checks[at].verdict}]" if checks else ""
            _print_passage("    - ", result, roots, verdict, bold, indent="      ")
            at += 1


def _where(result: SearchResult, roots: set[Any]) -> str:
    """The result's source as shown: root-qualified when the results come from several roots,
    a snapshot's URL."""
    c = result.citation
    if c.source_class == "snapshot" and result.metadata.get("root"):
        return str(result.metadata["root"])  # the URL (its archived file is c.source)
    if len(roots) > 1 and result.metadata.get("root"):
        return f"{str(result.metadata['root']).rstrip('/')}/{c.source}"
    return c.source


def _print_passage(
    lead: str,
    result: SearchResult,
    roots: set[Any],
    verdict: str,
    bold: bool,
    indent: str = "    ",
) -> None:
    c = result.citation
    print(
        f"{lead}{_where(result, roots)}:{c.start_line}-{c.end_line}{_pages(c)} "
        f"[{c.start_offset}:{c.end_offset}]  score {result.score:.4f}{verdict}"
    )
    heading = " > ".join(result.metadata.get("heading_path", []))
    if heading:
        print(f"{indent}§ {heading}")
    print(f"{indent}{snippet(result, bold)}")


def show_search(response: SearchResponse, checks: Sequence[Verification], *, as_json: bool) -> None:
    """A search's results (with their verdicts when checked), as JSON or as lines."""
    if as_json:
        emit_json(search_json(response, checks))
    else:
        print_search(response, checks)


def search_json(response: SearchResponse, checks: Sequence[Verification]) -> dict[str, Any]:
    """``response.to_dict()`` with each result's verification, when checked."""
    payload = response.to_dict()
    for item, check in zip(payload["results"], checks, strict=False):
        item["verification"] = {"verdict": check.verdict, "reason": check.reason}
    return payload


def print_table(values: dict[str, Any]) -> None:
    """``key  value`` lines, keys aligned; nested values as JSON."""
    width = max(len(k) for k in values)
    for key, value in values.items():
        shown = json.dumps(value, ensure_ascii=False) if isinstance(value, dict) else value
        print(f"{key:<{width}}  {shown}")
