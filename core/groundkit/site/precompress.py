"""``build-site --precompress``: ``NAME.gz`` / ``NAME.br`` beside a site's runtime and app files.

A static host that serves pre-compressed siblings (nginx ``gzip_static`` / ``brotli_static``,
Caddy ``precompressed``, most CDNs) then sends them with ``Content-Encoding`` and the browser
inflates them before anything reads them (ADR 0033). gzip is the standard library's; brotli is
the ``brotli`` extra, imported only when asked for. Both are deterministic (gzip mtime 0).
"""

from __future__ import annotations

import gzip
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from groundkit.errors import ConfigurationError
from groundkit.plugins import install_hint

__all__ = ["ENCODINGS", "check_precompress", "gzip_bytes", "precompress"]

ENCODINGS = ("gzip", "brotli")
_KEEP_BELOW = 0.9  # a sibling at least 10 % smaller than its file, or none


def gzip_bytes(data: bytes) -> bytes:
    """``data`` as gzip -9 with mtime 0: the same bytes on every build."""
    return gzip.compress(data, 9, mtime=0)


def _brotli() -> Any:
    try:
        import brotli  # type: ignore[import-not-found, import-untyped, unused-ignore]
    except ImportError:
        raise ConfigurationError(
            f"--precompress brotli needs the brotli extra, which is not installed: "
            f"{install_hint('brotli')}",
            subject="brotli",
        ) from None
    return brotli


def _coders(encoding: str) -> list[tuple[str, Callable[[bytes], bytes]]]:
    if encoding not in ENCODINGS:
        raise ConfigurationError(
            f"--precompress {encoding}: choose one of {', '.join(ENCODINGS)}", subject=encoding
        )
    coders: list[tuple[str, Callable[[bytes], bytes]]] = [(".gz", gzip_bytes)]
    if encoding == "brotli":
        brotli = _brotli()
        coders.append((".br", lambda data: bytes(brotli.compress(data, quality=11))))
    return coders


def check_precompress(encoding: str | None) -> None:
    """Refuse an unknown encoding or a missing brotli before any work."""
    if encoding is not None:
        _coders(encoding)


def precompress(files: Iterable[Path], encoding: str) -> int:
    """Write the siblings of ``files`` that pay (gzip, and brotli if asked); their bytes."""
    coders = _coders(encoding)
    written = 0
    for path in files:
        data = path.read_bytes()
        for suffix, coder in coders:
            packed = coder(data)
            if len(packed) < len(data) * _KEEP_BELOW:
                path.with_name(path.name + suffix).write_bytes(packed)
                written += len(packed)
    return written
