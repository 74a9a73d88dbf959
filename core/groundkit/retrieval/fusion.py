"""Reciprocal-rank fusion: score(d) = Σ weight_leg / (rrf_k + rank_leg(d)), ranks from 1.

Only positions count; the legs' own scores are ignored (they live on different scales). Each
sum is taken with ``math.fsum``, so the result does not depend on the order of the legs.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Mapping, Sequence
from typing import Any, TypeVar

from groundkit.config import DEFAULT_RRF_K

__all__ = ["DEFAULT_RRF_K", "reciprocal_rank_fusion"]

K = TypeVar("K", bound=Hashable)


def reciprocal_rank_fusion(
    rankings: Sequence[Sequence[tuple[K, float]]],
    *,
    tie_keys: Callable[[Sequence[K]], Mapping[K, Any]],
    rrf_k: int = DEFAULT_RRF_K,
    weights: Sequence[float] | None = None,
) -> list[tuple[K, float]]:
    """Fuse best-first rankings of (id, score) into one best-first list of (id, fused score).

    Equal fused scores are ordered by ``tie_keys`` (content-derived, so ingest order never
    matters). An id twice in one ranking raises ``ValueError``, as do a negative or non-finite
    weight and an ``rrf_k`` below 1.
    """
    if isinstance(rrf_k, bool) or not isinstance(rrf_k, int) or rrf_k < 1:
        raise ValueError(f"rrf_k must be an integer >= 1, got {rrf_k!r}")
    leg_weights = [1.0] * len(rankings) if weights is None else [float(w) for w in weights]
    if len(leg_weights) != len(rankings):
        raise ValueError(f"{len(leg_weights)} weights for {len(rankings)} rankings")
    if not all(math.isfinite(w) and w >= 0 for w in leg_weights):
        raise ValueError(f"weights must be finite and >= 0, got {list(leg_weights)}")
    parts: dict[K, list[float]] = {}
    for leg, (ranking, weight) in enumerate(zip(rankings, leg_weights, strict=True)):
        seen: set[K] = set()
        for rank, (item, _score) in enumerate(ranking, start=1):
            if item in seen:
                raise ValueError(f"ranking {leg} holds id {item!r} more than once")
            seen.add(item)
            if weight:
                parts.setdefault(item, []).append(weight / (rrf_k + rank))
    fused = {item: math.fsum(values) for item, values in parts.items()}
    ties = tie_keys(list(fused))
    return sorted(fused.items(), key=lambda pair: (-pair[1], ties[pair[0]]))
