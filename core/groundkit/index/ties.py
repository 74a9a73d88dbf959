"""The one tie ordering: equal scores in content-derived tie-key order, then chunk key.

``order_ties`` (lists) and ``order_tied_arrays`` (numpy) apply the same rule to the two
layouts candidates come in: each run of equal scores that reaches the k-th place is ordered
by ``tie_order_keys`` within the block it holds. A chunk without a tie key (a missing record)
raises ``KeyError`` rather than being ranked silently (adr/0005, adr/0015).

``CachedTieKeys`` keeps a read view's tie keys, fetched once per chunk; once its lookups add
up to the read view's size (up to ``LexicalPlan.tie_ranks_max_chunks``), it ranks every chunk
by tie key in one pass, and ties are then broken by comparing integers.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, filterfalse
from operator import eq, neg
from typing import Any

from groundkit.index.cache import BoundedCache
from groundkit.index.lexical_plan import DEFAULT_PLAN, LexicalPlan
from groundkit.store.protocols import CollectionReader, TieKey

__all__ = [
    "CachedTieKeys",
    "TieKeys",
    "by_chunk_key",
    "order_tied_arrays",
    "order_ties",
    "tie_order_keys",
    "tie_ranks_of",
    "tied_order",
]

TieKeys = Callable[[Sequence[int]], Mapping[int, TieKey]]
"""Content-derived tie keys of chunk keys (``CollectionReader.tie_keys``)."""
_UNRANKED = -1


def by_chunk_key(keys: Sequence[int]) -> dict[int, TieKey]:
    """Tie keys that order by chunk key alone (for scores with no records behind them)."""
    return {key: ("", key, "") for key in keys}


class CachedTieKeys:
    """Wraps a reader's ``tie_keys`` with a per-view cache; called the same way."""

    def __init__(
        self,
        fetch: TieKeys,
        *,
        every: Callable[[], Iterable[tuple[int, TieKey]]] | None = None,
        chunk_count: int = 0,
        rank_after: int | None = None,
        plan: LexicalPlan = DEFAULT_PLAN,
    ) -> None:
        """``every`` gives every chunk's tie key in one pass; with it, the read view is ranked
        once ``rank_after`` keys (default: ``chunk_count``) have been looked up."""
        self._fetch = fetch
        self._known: BoundedCache[int, TieKey] = BoundedCache(plan.tie_cache_entries)
        self._every = every if chunk_count <= plan.tie_ranks_max_chunks else None
        self._rank_after = chunk_count if rank_after is None else rank_after
        self._looked_up = 0
        self._ranks: array[int] | None = None

    @classmethod
    def of(
        cls,
        reader: CollectionReader,
        *,
        rank_after: int | None = None,
        plan: LexicalPlan = DEFAULT_PLAN,
    ) -> CachedTieKeys:
        """The cache for ``reader``'s read view."""
        return cls(
            reader.tie_keys,
            every=reader.iter_tie_keys,
            chunk_count=reader.chunk_count,
            rank_after=rank_after,
            plan=plan,
        )

    def __call__(self, keys: Sequence[int]) -> Mapping[int, TieKey]:
        """A mapping that holds the tie key of each of ``keys`` whose records exist (and maybe
        others); a missing record stays missing, so looking it up raises ``KeyError``."""
        known = self._known
        self._looked_up += len(keys)
        missing = list(filterfalse(known.holds, keys))
        if missing:
            known.put_many(dict(self._fetch(missing)), keep=keys)
        return known.view()

    def ranks(self) -> array[int] | None:
        """Every chunk key's place in tie-key order (``-1`` where no chunk or record is), or
        ``None`` while they are not (or cannot be) made. Equal tie keys go by chunk key."""
        if self._ranks is None and self._every is not None:
            if self._looked_up < self._rank_after:
                return None
            found = dict(self._every())
            self._every = None
            ordered = sorted(found, key=lambda key: (found[key], key))
            ranks = array("q", [_UNRANKED]) * (max(found, default=-1) + 1)
            for place, key in enumerate(ordered):
                ranks[key] = place
            self._ranks = ranks
        return self._ranks


def tie_ranks_of(tie_keys: TieKeys) -> array[int] | None:
    """The view-wide tie ranks behind ``tie_keys``, where it is a ``CachedTieKeys`` that
    has (or can make) them."""
    return tie_keys.ranks() if isinstance(tie_keys, CachedTieKeys) else None


def tie_order_keys(tied: Sequence[int], tie_keys: TieKeys) -> list[int] | list[TieKey]:
    """What orders ``tied`` by tie key: each one's view-wide rank where ``tie_keys`` has
    them, else its tie key; equal tie keys are left to the chunk key. A key without a tie key
    (or a rank) raises ``KeyError``."""
    tie_ranks = tie_ranks_of(tie_keys)
    if tie_ranks is None:
        return list(map(tie_keys(tied).__getitem__, tied))
    try:
        ranks = list(map(tie_ranks.__getitem__, tied))
    except IndexError:
        ranks = [_UNRANKED]
    if min(ranks, default=0) < 0:
        raise KeyError(_first_unranked(tied, tie_ranks))
    return ranks


def tied_order(tied: Sequence[int], tie_keys: TieKeys) -> list[int]:
    """Each of ``tied``'s place among them in (tie key, chunk key) order."""
    order = tie_order_keys(tied, tie_keys)
    ranks = [0] * len(tied)
    for place, (_, _, at) in enumerate(sorted(zip(order, tied, range(len(tied)), strict=True))):
        ranks[at] = place
    return ranks


def order_ties(keys: list[int], values: list[float], k: int, tie_keys: TieKeys) -> None:
    """Put each run of equal ``values`` (sorted descending) that reaches the k-th place in
    tie order, in place; each run keeps its block. Finding the runs happens in C."""
    repeated = set(compress(values[1:], map(eq, values[1:], values[:-1])))
    if not repeated:
        return
    if len(values) > k:  # a run starts within the first k iff it reaches the k-th place
        repeated = {value for value in repeated if value >= values[k - 1]}
    places = list(compress(range(len(values)), map(repeated.__contains__, values)))
    tied = list(map(keys.__getitem__, places))
    tied_values = list(map(values.__getitem__, places))
    order = tie_order_keys(tied, tie_keys)
    ordered = sorted(zip(map(neg, tied_values), order, tied, strict=True))
    for place, (_, _, key) in zip(places, ordered, strict=True):
        keys[place] = key


def order_tied_arrays(np: Any, matched: Any, values: Any, tie_keys: TieKeys) -> None:
    """``order_ties`` for numpy arrays sorted descending, every run of which reaches the k-th
    place (they hold no score under the k-th): vectorised, the same order, in place."""
    equal = values[1:] == values[:-1]
    if not equal.any():
        return
    tied = np.zeros(matched.size, dtype=bool)
    tied[1:] = equal
    tied[:-1] |= equal
    places = np.flatnonzero(tied)
    tied_keys = matched[places]
    ranks = _array_ranks(np, tied_keys, tie_keys)
    matched[places] = tied_keys[np.lexsort((ranks, -values[places]))]


def _array_ranks(np: Any, tied_keys: Any, tie_keys: TieKeys) -> Any:
    """Each tied chunk's place in tie order: gathered from the view-wide ranks where all of
    these have one, else ``tied_order`` (which raises ``KeyError`` for a missing record)."""
    ranks = tie_ranks_of(tie_keys)
    if ranks is not None:
        ranked = np.frombuffer(ranks, dtype=np.int64)  # a view, no copy
        if tied_keys.max() < ranked.size:
            found = ranked[tied_keys]
            if found.min() >= 0:
                return found
    return np.asarray(tied_order(tied_keys.tolist(), tie_keys), dtype=np.int64)


def _first_unranked(tied: Sequence[int], tie_ranks: Sequence[int]) -> int:
    return next(key for key in tied if not 0 <= key < len(tie_ranks) or tie_ranks[key] < 0)
