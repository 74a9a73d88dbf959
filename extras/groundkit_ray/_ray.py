"""Ray, imported on request: a missing install is an error naming the extra."""

from __future__ import annotations

from typing import Any

from groundkit.extend import ConfigurationError, install_hint

__all__ = ["import_ray", "require_initialized"]


def import_ray() -> Any:
    """The ``ray`` module, or ``ConfigurationError`` naming ``pip install ".[ray]"``."""
    try:
        import ray
    except ImportError as exc:
        raise ConfigurationError(
            f"sharded builds and serving on Ray need groundkit's extra 'ray', which is not "
            f"installed ({exc}); install it with: {install_hint('ray')}",
            subject="ray",
        ) from None
    return ray


def require_initialized(address: str | None = None, **init: Any) -> Any:
    """Ray, connected: to ``address`` (a cluster), or a local instance started here."""
    ray = import_ray()
    if not ray.is_initialized():
        ray.init(address=address, **init)
    return ray
