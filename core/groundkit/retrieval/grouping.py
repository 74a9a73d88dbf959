"""Results grouped by source page: one entry per document, its best passages beneath it."""

from __future__ import annotations

from collections.abc import Sequence

from groundkit.contracts import SearchResult
from groundkit.responses import ResultGroup

__all__ = ["group_results", "grouped"]


def grouped(results: Sequence[SearchResult], pages: int, passages: int) -> list[list[SearchResult]]:
    """The first ``pages`` documents of ``results`` (ranked best first), in the order of their
    best passage, each with its first ``passages`` passages in rank order."""
    groups: list[list[SearchResult]] = []
    at: dict[str, int] = {}
    for result in results:
        index = at.get(result.document_id)
        if index is None:
            if len(groups) == pages:
                continue
            at[result.document_id] = index = len(groups)
            groups.append([])
        if len(groups[index]) < passages:
            groups[index].append(result)
    return groups


def group_results(results: Sequence[SearchResult], sizes: Sequence[int]) -> tuple[ResultGroup, ...]:
    """``results`` (page by page) cut into groups of ``sizes``."""
    out: list[ResultGroup] = []
    at = 0
    for size in sizes:
        part = tuple(results[at : at + size])
        out.append(ResultGroup(part[0].document_id, part[0].source, part))
        at += size
    return tuple(out)
