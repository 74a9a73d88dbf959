"""Plugins, found through entry points and loaded the first time the core needs one.

A plugin declares ``[project.entry-points."groundkit.plugins"]`` ``NAME = "module:register"``;
``register(registry)`` adds what it provides through ``groundkit.extend.PluginRegistry``
(adr/0053). The core never names a plugin's module: it reads the entry points (``importlib.
metadata``, about 15 ms) only when a name it does not know is asked for, so ``import
groundkit`` and a bm25 search load none. A plugin that cannot be loaded is remembered, and the
error for a name nobody provides says so. ``WELL_KNOWN`` only words messages: it says which pip
extra of groundkit provides a name (``minilm``: ``onnx``), never where its code lives. The
distribution is installed from a clone of this repository: PyPI's ``groundkit`` is another
project (adr/0026).
"""

from __future__ import annotations

import importlib
import threading
from collections.abc import Iterable
from types import ModuleType

from groundkit.errors import ConfigurationError

__all__ = [
    "PLUGIN_GROUP",
    "WELL_KNOWN",
    "import_extra",
    "install_hint",
    "load_plugins",
    "not_provided",
    "record_failure",
    "well_known",
]

PLUGIN_GROUP = "groundkit.plugins"
"""The entry-point group a plugin declares its ``register`` in."""

WELL_KNOWN: dict[str, str] = {
    "command:serve": "serve",
    "embedder-folder:onnx": "onnx",
    "embedder:minilm": "onnx",
    "reranker-folder:onnx": "onnx",
    "shard-engine:ray": "ray",
    "vector-store:usearch": "usearch",
    "vector-store:usearch_exact": "usearch",
}
"""``kind:name`` -> the pip extra of groundkit whose plugin provides it (for messages, help)."""

_LOCK = threading.Lock()
_LOADED = threading.Event()
_LOADING = threading.local()
"""Set in the thread running the plugins' ``register``: a lookup a plugin makes from there
finds what is registered so far instead of waiting for itself."""
_failed: dict[str, str] = {}
"""Plugins whose module or ``register`` failed: entry-point name -> what went wrong."""


def install_hint(extra: str) -> str:
    """The command that installs an extra from a clone, e.g. ``pip install ".[onnx]"``."""
    return f'pip install ".[{extra}]" (in a clone of groundkit: PyPI\'s groundkit is another)'


def well_known(kind: str) -> tuple[str, ...]:
    """The names of ``kind`` groundkit's own extras provide, sorted (listed before loading)."""
    return tuple(sorted(key.partition(":")[2] for key in WELL_KNOWN if key.startswith(f"{kind}:")))


def load_plugins() -> None:
    """Call every installed plugin's ``register`` once in this process (sorted by name).

    A name the application registered itself stays its own: a plugin does not replace it
    (``PluginRegistry``)."""
    if _LOADED.is_set() or getattr(_LOADING, "active", False):
        return
    with _LOCK:
        if _LOADED.is_set():
            return
        from importlib.metadata import entry_points

        from groundkit.plugin_registry import PluginRegistry

        _LOADING.active = True
        try:
            for entry in sorted(entry_points(group=PLUGIN_GROUP), key=lambda e: (e.name, e.value)):
                try:
                    register = entry.load()
                    register(PluginRegistry(entry.name))
                except Exception as exc:
                    _failed[entry.name] = f"{entry.value}: {type(exc).__name__}: {exc}"
        finally:
            _LOADING.active = False
        _LOADED.set()


def record_failure(plugin: str, why: str) -> None:
    """Remember that part of a plugin failed (named in the errors of names nobody provides)."""
    _failed[plugin] = why


def not_provided(kind: str, name: str, *, known: Iterable[str]) -> ConfigurationError:
    """The error for a ``kind`` called ``name`` that no registration and no plugin provides."""
    extra = WELL_KNOWN.get(f"{kind}:{name}")
    noun = kind.replace("-", " ")
    listed = ", ".join(sorted(set(known))) or "none"
    if extra is not None:
        message = (
            f"{noun} {name!r} comes with groundkit's extra {extra!r}, whose plugin is not "
            f"installed or could not be loaded; install it with: {install_hint(extra)}"
        )
    else:
        message = f"unknown {noun} {name!r}; available: {listed}"
    if _failed:
        broken = "; ".join(f"{plugin} ({why})" for plugin, why in sorted(_failed.items()))
        message += f" (plugins that failed to load: {broken})"
    return ConfigurationError(message, subject=name)


def import_extra(module: str, *, extra: str, what: str, install: str | None = None) -> ModuleType:
    """Import a plugin's ``module`` now; a failure says what to install.

    For a plugin's own lazy factories: ``what`` names the thing asked for (``embedder
    'minilm'``) in the ``ConfigurationError`` raised when the import fails. ``extra`` names
    groundkit's own pip extra; a plugin of another distribution passes its own ``install``
    command (``pip install my-plugin[gpu]``) instead.
    """
    try:
        return importlib.import_module(module)
    except ImportError as exc:
        if install is not None:
            message = f"{what} needs {extra!r} ({exc}); install it with: {install}"
        else:
            message = (
                f"{what} needs groundkit's extra {extra!r}, which is not installed or cannot "
                f"be imported ({exc}); install it with: {install_hint(extra)}"
            )
        raise ConfigurationError(message, subject=what) from None
