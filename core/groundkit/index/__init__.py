"""Lexical scoring over a collection read view's postings, and exact top-k selection."""

from __future__ import annotations

from groundkit.index.bm25 import BM25Index
from groundkit.index.lexical_plan import DEFAULT_PLAN, LexicalPlan
from groundkit.index.paths import LexicalHits
from groundkit.index.topk import select_top_k

__all__ = ["DEFAULT_PLAN", "BM25Index", "LexicalHits", "LexicalPlan", "select_top_k"]
