"""``ServeSettings``: everything the service is told at start, validated once."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass
from pathlib import Path

from groundkit import (
    DEFAULT_COLLECTION,
    DEFAULT_INDEX_DIR,
    CollectionNotFoundError,
    ConfigurationError,
)
from groundkit_serve.models import MAX_TOP_K_SERVED

__all__ = ["LOOPBACK_NAMES", "ServeSettings", "is_loopback"]

LOOPBACK_NAMES = ("127.0.0.1", "localhost", "::1")


def is_loopback(host: str) -> bool:
    """True for ``localhost`` and loopback addresses (127.0.0.0/8, ::1)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True, slots=True)
class ServeSettings:
    """How the service runs; the defaults are the safe ones (adr/0020)."""

    index_dir: Path = Path(DEFAULT_INDEX_DIR)
    collection: str = DEFAULT_COLLECTION
    host: str = "127.0.0.1"
    port: int = 8765
    token: str | None = None
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()
    max_top_k: int = 50
    max_body_bytes: int = 64 * 1024
    timeout_s: float = 10.0
    verify_timeout_s: float = 300.0
    grace_s: float = 5.0
    workers: int = 4
    processes: int = 1
    max_verifies: int = 1
    max_open_collections: int = 8
    connector: bool = False
    reranker_dir: str | None = None
    json_logs: bool = False

    def __post_init__(self) -> None:
        if not 1 <= self.max_top_k <= MAX_TOP_K_SERVED:
            raise ConfigurationError(
                f"max_top_k must be from 1 to {MAX_TOP_K_SERVED}, got {self.max_top_k}"
            )
        for name in (
            "workers",
            "processes",
            "max_verifies",
            "max_open_collections",
            "max_body_bytes",
        ):
            if getattr(self, name) < 1:
                raise ConfigurationError(f"{name} must be >= 1, got {getattr(self, name)}")
        if not (self.timeout_s > 0 and self.verify_timeout_s > 0):
            raise ConfigurationError("timeouts must be > 0 seconds")
        if not 0 <= self.grace_s < float("inf"):
            raise ConfigurationError(f"grace_s must be a finite number >= 0, got {self.grace_s}")
        if not 0 <= self.port <= 65535:
            raise ConfigurationError(f"port must be from 0 to 65535, got {self.port}")
        if self.token is not None and len(self.token) < 16:
            raise ConfigurationError(
                "the bearer token is shorter than 16 characters; use a long random one "
                "(e.g. `python3 -c 'import secrets; print(secrets.token_urlsafe(32))'`)"
            )

    @property
    def loopback(self) -> bool:
        return is_loopback(self.host)

    def require_safe_bind(self) -> None:
        """Refuse to listen beyond loopback without a bearer token."""
        if not self.loopback and self.token is None:
            raise ConfigurationError(
                f"refusing to listen on {self.host}, beyond loopback, without a bearer token: "
                "pass --token-file FILE or set GROUNDKIT_SERVE_TOKEN (or bind 127.0.0.1)",
                subject=self.host,
            )

    def require_index_dir(self) -> None:
        """Refuse to start on an index folder that is not there (a typo would serve nothing)."""
        if not self.index_dir.is_dir():
            raise CollectionNotFoundError(
                f"no index folder at {self.index_dir}: build one with `groundkit ingest PATH "
                f"--index-dir {self.index_dir}`, or point --index-dir at an existing one",
                subject=str(self.index_dir),
            )

    def host_patterns(self) -> tuple[str, ...]:
        """Host header values accepted: loopback names, the bound host, and those allowed."""
        names = [*LOOPBACK_NAMES, self.host, *self.allowed_hosts]
        return tuple(dict.fromkeys(n.lower() for n in names))

    def origin_patterns(self) -> tuple[str, ...]:
        """Origins accepted: http(s) on the accepted host names, and those allowed."""
        origins: list[str] = []
        for name in self.host_patterns():
            shown = f"[{name}]" if ":" in name else name
            origins += [f"http://{shown}", f"https://{shown}"]
        return tuple(dict.fromkeys([*origins, *(o.lower() for o in self.allowed_origins)]))
