"""Lexical scoring over a collection snapshot's postings, and exact top-k selection."""

from __future__ import annotations

from groundkit.index.bm25 import BM25Index
from groundkit.index.topk import select_top_k

__all__ = ["BM25Index", "select_top_k"]
