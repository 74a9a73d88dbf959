"""``Registry[T]``: one kind's names, the core's and the application's first, then the plugins'.

Each consumer holds the registry of the kind it uses (the embedder lookup its embedders, the
CLI its commands) and pulls the plugins' records of that kind from ``groundkit.plugins``, which
imports no consumer (adr/0058). One vocabulary: ``add``, ``get``, ``names``, ``reset``; one
error, ``ConfigurationError``, that names any plugin which failed to load.

The one collision rule: a name added in-process (by the core or the application) is never
replaced by a plugin's; among plugins, the first by entry-point name keeps it and a later one
is named in errors and in ``--help``. Plugins are loaded the first time a name is asked for
that nothing added in-process provides.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Generic, TypeVar

from groundkit.errors import ConfigurationError
from groundkit.plugins import load_plugins, not_provided, recorded, well_known

__all__ = ["Registry"]

T = TypeVar("T")


class Registry(Generic[T]):
    """The names of one ``kind`` (``embedder``, ``command``, ...) and what each stands for."""

    def __init__(
        self,
        kind: str,
        builtin: Mapping[str, T] | None = None,
        *,
        check: Callable[[str], bool] = str.isidentifier,
    ) -> None:
        self.kind = kind
        self._builtin = dict(builtin or {})
        self._check = check
        self._own: dict[str, T] = dict(self._builtin)

    def add(self, name: str, item: T) -> None:
        """Make ``name`` stand for ``item`` (in-process: no plugin replaces it)."""
        if not isinstance(name, str) or not self._check(name):
            raise ConfigurationError(
                f"{self.kind.replace('-', ' ')} name {name!r} must be a non-empty identifier",
                subject=str(name),
            )
        self._own[name] = item

    def _plugins(self) -> dict[str, T]:
        found: dict[str, T] = {}
        for name, (_plugin, item) in recorded(self.kind).items():
            if name not in self._own:
                found[name] = item  # type: ignore[assignment]  # recorded under this kind
        return found

    def get(self, name: str) -> T:
        """What ``name`` stands for (loading the plugins if nothing in-process provides it).

        ``ConfigurationError``, naming the extra to install or the plugins that failed, if none
        does."""
        if name in self._own:
            return self._own[name]
        found = self._plugins().get(name)
        if found is None:
            load_plugins()
            found = self._plugins().get(name)
        if found is None:
            raise not_provided(self.kind, name, known=[*self.names(), *well_known(self.kind)])
        return found

    def __contains__(self, name: object) -> bool:
        """Whether ``name`` is provided (loading the plugins if nothing in-process has it)."""
        if name in self._own or name in self._plugins():
            return True
        load_plugins()
        return name in self._plugins()

    def names(self, *, load: bool = False) -> tuple[str, ...]:
        """The names provided, in the order a lookup prefers them: in-process ones sorted, then
        the plugins' sorted. ``load`` loads the plugins first; else only those loaded so far."""
        if load:
            load_plugins()
        return (*sorted(self._own), *sorted(self._plugins()))

    def reset(self) -> None:
        """Back to the core's own names (the application's go; plugins' records stay)."""
        self._own = dict(self._builtin)
