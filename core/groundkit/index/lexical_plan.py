"""The lexical planner: every threshold of the index in one frozen plan, and the path choice.

Every path gives the same answer (bit-identical scores, the same ties), so a threshold only
moves cost; the measurements behind each default are in adr/0010, adr/0014-0016 and adr/0017.
Tests and benchmarks force a path by passing a plan (``dataclasses.replace(DEFAULT_PLAN, ...)``).
"""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass

__all__ = ["DEFAULT_PLAN", "PATHS", "LexicalPlan"]

PATHS = (
    "python",
    "python-filtered",
    "python-packed",
    "python-maxscore",
    "numpy-dense",
    "numpy-sparse",
)
"""Every scoring path's name, as ``LexicalHits.path`` reports it."""


@dataclass(frozen=True, slots=True)
class LexicalPlan:
    """Thresholds that choose a scoring path, a layout and a selection, and bound the caches."""

    # MaxScore pruning (pure Python): for k up to this, on queries with this many postings.
    pruning_max_k: int = 100
    pruning_min_postings: int = 50_000
    maxscore_margin: float = 1e-9
    """Relative slack on pruning bounds: sums in another order differ by a few ulps."""
    # Packed addition (pure Python): collections up to this many chunk slots, when a query's
    # postings reach slots / slots_per_posting + rescores_per_hit * k * terms.
    packed_max_chunks: int = 1 << 16
    packed_slots_per_posting: int = 4
    packed_rescores_per_hit: int = 2
    packed_fraction_bits: int = 18
    packed_sample_stride: int = 8
    # Term scores as lists (faster loops) up to this many chunk slots, arrays above (memory).
    lists_max_chunks: int = 250_000
    # numpy (accelerator "auto"): only from this many chunk slots, where a query saves more
    # than ~50 µs; below, importing numpy (60-110 ms) costs more than it saves (adr/0047).
    numpy_min_chunks: int = 2048
    # numpy: sum sparsely when postings * ratio < chunk slots, else into a dense vector.
    numpy_sparse_ratio: int = 4
    # Selection of the top k among candidate scores (``topk.top_k_columns``): a heap when
    # candidates outnumber k this many times, a sampled floor from this many, else a sort.
    heap_fraction: int = 8
    sampled_fraction: int = 2
    selection_sample_stride: int = 4
    # Cache bounds, and the largest read view whose chunks are all ranked by tie key at once.
    postings_cache_postings: int = 1 << 26
    term_scores_cache_postings: int = 1 << 24
    numpy_cache_postings: int = 1 << 26
    packed_cache_bytes: int = 1 << 26
    tie_cache_entries: int = 1 << 20
    tie_ranks_max_chunks: int = 250_000

    def term_scores_as_lists(self, slots: int) -> bool:
        """Whether the pure-Python paths keep term scores as lists (else arrays)."""
        return slots <= self.lists_max_chunks

    def packs(self, slots: int) -> bool:
        """Whether a pure-Python index of ``slots`` chunk slots prepares packed addition."""
        return slots <= self.packed_max_chunks

    def paths(
        self,
        terms: int,
        postings: int,
        k: int,
        slots: int,
        filtered: bool,
        available: Collection[str],
    ) -> tuple[str, ...]:
        """The paths to try for a query, in order; each may decline, the last never does.

        ``terms`` and ``postings`` count the query's matching terms and their postings;
        ``available`` names the paths the index has built (numpy's only where it is used).
        """
        if filtered:
            return ("python-filtered",)
        if "numpy-dense" in available:
            return (
                ("numpy-sparse",)
                if postings * self.numpy_sparse_ratio < slots
                else ("numpy-dense",)
            )
        chosen: list[str] = []
        if terms > 1 and "python-packed" in available:
            walked = slots // self.packed_slots_per_posting
            if postings >= walked + self.packed_rescores_per_hit * k * terms:
                chosen.append("python-packed")
        if terms > 1 and k <= self.pruning_max_k and postings >= self.pruning_min_postings:
            chosen.append("python-maxscore")
        chosen.append("python")
        return tuple(chosen)


DEFAULT_PLAN = LexicalPlan()
