"""Searching a built site from Python, over the same ``index/`` files the page fetches."""

from __future__ import annotations

from pathlib import Path

from groundkit.retrieval import Searcher
from groundkit.source_files import contained_path
from groundkit.store.static import StaticReader

__all__ = ["open_site"]


def open_site(site: str | Path) -> Searcher:
    """A retriever over a built site's ``index/``, as the page searches it (files on disk)."""
    root = Path(site)
    reader = StaticReader(
        lambda path: contained_path(root, path).read_bytes(), index="index/", location=str(root)
    )
    return Searcher.of(reader)
