"""Native extras found by name and imported only on request (``--embedder minilm``).

The core never imports an extra at import time: a name maps to ``"module:attribute"`` and the
pip extra that provides it. A failed import becomes a ``ConfigurationError`` that names the
``pip install`` to run (adr/0012).
"""

from __future__ import annotations

import importlib

from groundkit.errors import ConfigurationError

__all__ = ["install_hint", "load_extra"]


def install_hint(extra: str) -> str:
    """The command that installs an extra, e.g. ``pip install "groundkit[onnx]"``."""
    return f'pip install "groundkit[{extra}]"'


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
            f"{what} needs groundkit's native extra {extra!r}, which is not installed or cannot "
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
