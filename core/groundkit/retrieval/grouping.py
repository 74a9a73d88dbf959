"""Results grouped by source page: one entry per document, its best passages beneath it, each
page ranked by its best passage plus half its second (adr/0074)."""

from __future__ import annotations

from collections.abc import Sequence

from groundkit.contracts import SearchResult
from groundkit.responses import ResultGroup

__all__ = ["group_results", "grouped", "page_score"]


def page_score(best: float, second: float | None) -> float:
    """A page's rank score from its two best passages' scores: the best one's plus half the
    second's, so a page that answers in two places can outrank one whose single passage
    scores a little higher. A negative second (a dense cosine) adds nothing, so the score is
    never under the best passage's."""
    return best if second is None else best + max(second, 0.0) * 0.5


def grouped(
    results: Sequence[SearchResult], pages: int, passages: int
) -> list[tuple[float, list[SearchResult]]]:
    """The best ``pages`` documents of ``results`` (ranked best first) by ``page_score``, each
    with its score and its first ``passages`` passages in rank order; equal scores keep the
    order of the pages' best passages."""
    found: dict[str, list[SearchResult]] = {}  # each page's passages, in rank order
    for result in results:
        found.setdefault(result.document_id, []).append(result)
    ranked = list(found.values())  # in the order of their best passages
    scores = [page_score(p[0].score, p[1].score if len(p) > 1 else None) for p in ranked]
    best = sorted(range(len(ranked)), key=lambda i: (-scores[i], i))[:pages]
    return [(scores[i], ranked[i][:passages]) for i in best]


def group_results(
    results: Sequence[SearchResult], pages: Sequence[tuple[float, int]]
) -> tuple[ResultGroup, ...]:
    """``results`` (page by page) cut into groups of the given (score, size) pairs."""
    out: list[ResultGroup] = []
    at = 0
    for score, size in pages:
        part = tuple(results[at : at + size])
        out.append(ResultGroup(part[0].document_id, part[0].source, part, score))
        at += size
    return tuple(out)
