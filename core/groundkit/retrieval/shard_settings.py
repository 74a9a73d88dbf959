"""The settings every shard holding chunks must agree on before a search judges its evidence:
the similarity floor, hybrid's lexical share and bm25's bar (adr/0049, adr/0060, adr/0072).

A value the search gives is checked by the reference shard; otherwise every shard holding
chunks resolves its own, and shards that disagree are ``ConfigurationError`` naming each
shard's, never one shard's value.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from groundkit.errors import ConfigurationError
from groundkit.retrieval.floor import FLOOR_FILE
from groundkit.retrieval.steps import Floor, LexicalBar, LexicalShare, Step

if TYPE_CHECKING:
    from groundkit.retrieval.execution import Layout

__all__ = ["ShardSettings"]

Ask = Callable[[Sequence[int], Step[Any]], list[Any]]
"""``Execution.ask``: a step's answer from each of the shards named."""


class ShardSettings:
    """The floor, hybrid's share and bm25's bar as the shards of ``layout`` resolve them."""

    def __init__(self, ask: Ask, layout: Layout) -> None:
        self._ask = ask
        self._layout = layout

    def floor(self, mode: str, given: float | None) -> tuple[float, str]:
        """The similarity floor (a given one: the reference shard's check of it); shards that
        disagree (a ``dense-floor.json`` in some shards only, or different ones) are
        ``ConfigurationError``."""
        asked = self._asked(given)
        floors = self._ask(asked, Floor(mode, given))
        return self._agreed(
            asked, floors, "similarity floors", "(or remove them all for the embedder's "
            "default), or pass min_similarity",
        )  # fmt: skip

    def lexical_share(self, given: float | None) -> tuple[float, str]:
        """Hybrid's lexical evidence bar (adr/0049)."""
        asked = self._asked(given)
        shares = self._ask(asked, LexicalShare(given))
        return self._agreed(asked, shares, "minimum lexical shares", "or pass min_lexical_share")

    def bm25_bar(self) -> tuple[float | None, str]:
        """bm25's bar; asked per search, as the floor is, since an ingest or ``calibrate`` may
        record it anew while a searcher is open (adr/0072)."""
        bars = self._ask(self._layout.holding, LexicalBar())
        if len(set(bars)) > 1:
            raise ConfigurationError(
                f"the shards of {self._layout.collection!r} record different lexical bars "
                f"({bars}); calibrate the sharded collection again",
                subject=self._layout.collection,
            )
        found: tuple[float | None, str] = bars[0]
        return found

    def _asked(self, given: float | None) -> list[int]:
        """The shards that resolve a setting: the reference one checks a given value, else
        every shard holding chunks."""
        return [self._layout.reference] if given is not None else list(self._layout.holding)

    def _agreed(
        self, asked: list[int], answers: list[tuple[float, str]], what: str, fix: str
    ) -> tuple[float, str]:
        """The one value (and source) the shards resolved; ``ConfigurationError`` naming each
        shard's when they differ."""
        if len(set(answers)) > 1:
            from groundkit.shards.shard_manifest import shard_name

            found = ", ".join(
                f"{shard_name(shard)}: {value!r} ({source})"
                for shard, (value, source) in zip(asked, answers, strict=True)
            )
            raise ConfigurationError(
                f"the shards of {self._layout.collection!r} resolve different {what} "
                f"({found}); a sharded collection has one: put the same {FLOOR_FILE} in every "
                f"shard's folder {fix}",
                subject=self._layout.collection,
            )
        return answers[0]
