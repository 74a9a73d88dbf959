"""Native extras found by name and imported only on request (``--embedder minilm``).

The core never imports an extra at import time. ``EXTRAS`` is the one table of what the extras
provide: a name maps to ``"module:attribute"`` and the pip extra that installs it. A failed
import becomes a ``ConfigurationError`` that names the ``pip install`` to run (adr/0012). The
distribution is installed from a clone of this repository: PyPI's ``groundkit`` is another
project (adr/0026).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass

from groundkit.errors import ConfigurationError

__all__ = ["EXTRAS", "NamedExtra", "install_hint", "load_extra", "load_named"]


@dataclass(frozen=True, slots=True)
class NamedExtra:
    """Where a named extra lives (``"module:attribute"``) and the pip extra providing it."""

    target: str
    extra: str


EXTRAS: dict[str, NamedExtra] = {
    "embedder:minilm": NamedExtra("groundkit_native.onnx_embedder:minilm_factory", "onnx"),
    "embedder:onnx-folder": NamedExtra("groundkit_native.onnx_embedder:OnnxEmbedder", "onnx"),
    "reranker:onnx-folder": NamedExtra("groundkit_native.onnx_reranker:OnnxCrossEncoder", "onnx"),
    "vector-store:usearch": NamedExtra("groundkit_native.usearch_store:load", "usearch"),
    "vector-store:usearch_exact": NamedExtra(
        "groundkit_native.usearch_store:load_exact", "usearch"
    ),
}
"""Every named thing the extras provide, keyed ``kind:name``."""


def install_hint(extra: str) -> str:
    """The command that installs an extra from a clone, e.g. ``pip install ".[onnx]"``."""
    return f'pip install ".[{extra}]" (in a clone of groundkit: PyPI\'s groundkit is another)'


def load_named(key: str, *, what: str) -> object:
    """The attribute ``EXTRAS[key]`` names, imported now (``ConfigurationError`` if missing)."""
    entry = EXTRAS[key]
    return load_extra(entry.target, extra=entry.extra, what=what)


def load_extra(target: str, *, extra: str, what: str) -> object:
    """Import ``"module:attribute"`` and return the attribute.

    ``what`` names the thing asked for (``embedder 'minilm'``) in the error raised when the
    extra is not installed or cannot be imported.
    """
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigurationError(
            f"{what} needs groundkit's extra {extra!r}, which is not installed or cannot "
            f"be imported ({exc}); install it with: {install_hint(extra)}",
            subject=what,
        ) from None
    if not attribute:
        return module
    try:
        return getattr(module, attribute)
    except AttributeError:
        raise ConfigurationError(
            f"{what}: {module_name} has no {attribute!r}; reinstall with: {install_hint(extra)}",
            subject=what,
        ) from None
