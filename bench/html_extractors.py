"""The core's html.parser extractor beside BeautifulSoup(html5lib) and trafilatura, on real pages.

Run from the repository root, in an environment with the peers installed (they are not
groundkit dependencies):

    pip install beautifulsoup4 html5lib trafilatura lxml_html_clean
    PYTHONPATH=core python bench/html_extractors.py PAGE.html ...

For each page: words kept by each extractor; how far the html5lib tree with the same drop rules
agrees word for word with ours (difflib ratio over word lists: 1.0 means the parser makes no
difference); how much of trafilatura's main-content text we keep (recall) and how much of ours
it drops (our extra boilerplate); headings found; and the best of 5 timings per extractor.
Results are reported in adr/0021-extractor-identity.md.
"""

from __future__ import annotations

import difflib
import re
import sys
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

from groundkit.extract.html import DROPPED, DROPPED_CLASSES, DROPPED_ROLES, HtmlExtractor

_WORD = re.compile(r"\w+")


def _words(text: str) -> list[str]:
    return _WORD.findall(text.casefold())


def _best_of(function: Callable[[], str], passes: int = 5) -> tuple[str, float]:
    best, out = float("inf"), ""
    for _ in range(passes):
        started = time.perf_counter()
        out = function()
        best = min(best, time.perf_counter() - started)
    return out, best


def _html5lib_same_rules(data: bytes) -> str:
    from bs4 import BeautifulSoup

    soup = BeautifulSoup(data, "html5lib")
    for tag in soup.find_all(list(DROPPED)):
        tag.decompose()
    for tag in soup.find_all(attrs={"hidden": True}):
        tag.decompose()
    for tag in soup.find_all(attrs={"aria-hidden": "true"}):
        tag.decompose()
    for tag in soup.find_all(attrs={"role": list(DROPPED_ROLES)}):
        tag.decompose()
    for tag in soup.find_all(class_=list(DROPPED_CLASSES)):
        tag.decompose()
    for tag in soup.find_all(["header", "footer"]):
        if tag.find_parent(["main", "article"]) is None and tag.find_parent(role="main") is None:
            tag.decompose()
    return str(soup.get_text(" "))


def _trafilatura(data: bytes) -> str:
    import trafilatura

    out = trafilatura.extract(data.decode("utf-8", "replace"), output_format="markdown")
    return out or ""


def _overlap(ours: list[str], theirs: list[str]) -> float:
    """The share of ``theirs`` (as a multiset) that ``ours`` also holds."""
    if not theirs:
        return 1.0
    common = Counter(ours) & Counter(theirs)
    return sum(common.values()) / len(theirs)


def main(paths: list[str]) -> None:
    extractor = HtmlExtractor()
    print(
        "| page | KiB | words ours / html5lib / trafilatura | same-rules agreement | "
        "recall of trafilatura | ours dropped by trafilatura | headings ours / traf. | "
        "ms ours / html5lib / trafilatura |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for name in paths:
        data = Path(name).read_bytes()
        ours, t_ours = _best_of(lambda d=data, n=name: extractor.extract(d, name=n).text)
        soup, t_soup = _best_of(lambda d=data: _html5lib_same_rules(d))
        traf, t_traf = _best_of(lambda d=data: _trafilatura(d))
        w_ours, w_soup, w_traf = _words(ours), _words(soup), _words(traf)
        agreement = difflib.SequenceMatcher(None, w_ours, w_soup, autojunk=False).ratio()
        heads_ours = sum(line.startswith("#") for line in ours.splitlines())
        heads_traf = sum(line.startswith("#") for line in traf.splitlines())
        print(
            f"| {Path(name).parent.name}/{Path(name).name} | {len(data) / 1024:.0f} | "
            f"{len(w_ours)} / {len(w_soup)} / {len(w_traf)} | {agreement:.3f} | "
            f"{_overlap(w_ours, w_traf):.3f} | {1 - _overlap(w_traf, w_ours):.3f} | "
            f"{heads_ours} / {heads_traf} | "
            f"{t_ours * 1e3:.1f} / {t_soup * 1e3:.1f} / {t_traf * 1e3:.1f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
