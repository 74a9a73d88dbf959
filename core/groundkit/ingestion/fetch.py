"""Fetching a URL once, behind a server-side request forgery guard (adr/0022-snapshot-store.md).

Every hop (the URL and each redirect) is checked before any connection: http or https only, no
credentials in the URL, and every address the host resolves to must be public — loopback,
private, link-local, unique-local, multicast, reserved, unspecified and IPv4-mapped or 6to4
forms of those are refused unless the address is in ``allow`` (an explicit list of addresses
or networks). The connection then goes to the address that was checked, not to a second
lookup. Bodies over ``max_bytes`` are refused, never truncated; the whole fetch has one
deadline, so a slow server is refused too.
"""

from __future__ import annotations

import contextlib
import http.client
import ipaddress
import math
import socket
import ssl
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass
from urllib.parse import urljoin, urlsplit

from groundkit.errors import ConfigurationError, IngestionError

__all__ = ["CONTENT_TYPES", "Fetched", "address_refusal", "fetch", "is_url", "redacted"]

CONTENT_TYPES = {
    "text/html": ".html",
    "application/xhtml+xml": ".html",
    "application/pdf": ".pdf",
    "text/plain": ".txt",
    "text/markdown": ".md",
    "text/x-rst": ".rst",
}
"""Content types a fetched page may have, and the extension that decides how it is read."""
MAX_REDIRECTS = 5
_HEADERS = {"User-Agent": "groundkit-fetch", "Accept": ", ".join(CONTENT_TYPES)}
_CHUNK = 64 * 1024
IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network


@dataclass(frozen=True, slots=True)
class Fetched:
    """A fetched body: the URL asked for, the one that answered, and what came back."""

    url: str
    final_url: str
    content_type: str
    extension: str
    body: bytes


def is_url(value: object) -> bool:
    """True for an ``http://`` or ``https://`` string (what ``ingest`` fetches)."""
    return isinstance(value, str) and value.lower().startswith(("http://", "https://"))


def address_refusal(address: IPAddress) -> str | None:
    """Why ``address`` may not be fetched from without an explicit allow, or None if public."""
    if isinstance(address, ipaddress.IPv6Address):
        embedded = address.ipv4_mapped or address.sixtofour
        if embedded is not None:
            inner = address_refusal(embedded)
            return None if inner is None else f"{inner} (inside the IPv6 address {address})"
    for kind, flag in (
        ("loopback", address.is_loopback),
        ("link-local", address.is_link_local),
        ("multicast", address.is_multicast),
        ("unspecified", address.is_unspecified),
        ("reserved", address.is_reserved),
        ("private", address.is_private),
    ):
        if flag:
            return f"{address} is a {kind} address"
    if not address.is_global:
        return f"{address} is not a public address"
    return None


def fetch(
    url: str,
    *,
    max_bytes: int,
    timeout_s: float = 30.0,
    allow: Sequence[str] = (),
) -> Fetched:
    """GET ``url`` (following up to ``MAX_REDIRECTS`` checked redirects) within ``timeout_s``:
    the whole of it, connection, headers and body, however slowly the server drips them."""
    if not (isinstance(timeout_s, int | float) and math.isfinite(timeout_s) and timeout_s > 0):
        raise ConfigurationError(
            f"the fetch timeout must be a finite number of seconds > 0, got {timeout_s!r}",
            subject="timeout_s",
        )
    allowed = [_network(item, url) for item in allow]
    deadline = time.monotonic() + timeout_s
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        parts = urlsplit(current)
        address = _checked_address(current, allowed)
        connection = _connection(parts.scheme, parts.hostname or "", address, parts.port, deadline)
        watchdog = _Watchdog(connection, deadline)
        try:
            path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
            connection.request("GET", path, headers=_HEADERS)
            if watchdog.fired.is_set():  # it fired while connecting, before there was a socket
                raise TimeoutError
            response = connection.getresponse()
            if response.status in (301, 302, 303, 307, 308):
                location = response.getheader("Location")
                if not location:
                    raise _refused(url, f"{current} redirected without a Location", "fetch_failed")
                current = urljoin(current, location)
                continue
            if response.status != 200:
                raise _refused(
                    url,
                    f"{current} answered HTTP {response.status} {response.reason}",
                    "fetch_failed",
                )
            content_type = (response.getheader("Content-Type") or "").split(";")[0].strip().lower()
            extension = CONTENT_TYPES.get(content_type)
            if extension is None:
                raise _refused(
                    url,
                    f"{current} is {content_type or 'of no declared type'}, which a fetched page "
                    f"cannot read (accepted: {', '.join(sorted(CONTENT_TYPES))})",
                    "unsupported_type",
                )
            body = _read_body(url, response, max_bytes, deadline)
            if watchdog.fired.is_set():  # the socket was cut: what was read is not the body
                raise TimeoutError
            return Fetched(url, current, content_type, extension, body)
        except (OSError, http.client.HTTPException) as exc:
            if isinstance(exc, TimeoutError) or watchdog.fired.is_set():
                raise _slow(url, timeout_s) from None
            raise _refused(url, f"{current} could not be fetched ({exc})", "fetch_failed") from None
        finally:
            watchdog.cancel()
            connection.close()
    raise _refused(url, f"more than {MAX_REDIRECTS} redirects", "fetch_failed")


class _Watchdog:
    """Cuts ``connection``'s socket at ``deadline``: a socket timeout bounds each read, not a
    server that drips one byte every half second through its headers or body."""

    def __init__(self, connection: http.client.HTTPConnection, deadline: float) -> None:
        self.connection = connection
        self.fired = threading.Event()
        self._timer = threading.Timer(max(deadline - time.monotonic(), 0.0), self._cut)
        self._timer.daemon = True
        self._timer.start()

    def _cut(self) -> None:
        self.fired.set()
        sock = self.connection.sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)

    def cancel(self) -> None:
        self._timer.cancel()


def _network(item: str, url: str) -> IPNetwork:
    try:
        return ipaddress.ip_network(item, strict=False)
    except ValueError:
        raise _refused(
            url, f"allow entry {item!r} is not an address or network", "bad_url"
        ) from None


def _checked_address(url: str, allowed: list[IPNetwork]) -> IPAddress:
    """The address to connect to for ``url``; every address its host resolves to is checked."""
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        raise _refused(
            url, f"only http and https URLs are fetched, not {parts.scheme!r}", "bad_url"
        )
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise _refused(
            url,
            "the URL holds credentials (user@ or user:password@); they are never sent",
            "bad_url",
        )
    host = parts.hostname
    if not host:
        raise _refused(url, "the URL names no host", "bad_url")
    try:
        port = parts.port or (443 if parts.scheme.lower() == "https" else 80)
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, ValueError) as exc:
        raise _refused(url, f"{host} cannot be resolved ({exc})", "fetch_failed") from None
    addresses = sorted(
        {ipaddress.ip_address(str(info[4][0]).split("%")[0]) for info in infos}, key=str
    )
    for address in addresses:
        reason = address_refusal(address)
        if reason is not None and not any(address in network for network in allowed):
            raise _refused(
                url,
                f"{host} resolves to {address}: {reason}; refused to prevent requests into "
                "private networks (allow it explicitly: --allow-address ADDRESS)",
                "private_address",
            )
    return addresses[0]


def _connection(
    scheme: str, host: str, address: IPAddress, port: int | None, deadline: float
) -> http.client.HTTPConnection:
    """A connection to exactly ``address`` (TLS still checks the certificate for ``host``)."""
    remaining = max(deadline - time.monotonic(), 0.001)
    if scheme.lower() == "https":
        return _PinnedHTTPS(host, str(address), port or 443, remaining)
    return _PinnedHTTP(host, str(address), port or 80, remaining)


class _PinnedHTTP(http.client.HTTPConnection):
    def __init__(self, host: str, address: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address

    def connect(self) -> None:
        self.sock = socket.create_connection((self._address, self.port), self.timeout)


class _PinnedHTTPS(http.client.HTTPSConnection):
    def __init__(self, host: str, address: str, port: int, timeout: float) -> None:
        super().__init__(host, port, timeout=timeout)
        self._address = address
        self._tls = ssl.create_default_context()  # verifies the certificate against ``host``

    def connect(self) -> None:
        raw = socket.create_connection((self._address, self.port), self.timeout)
        self.sock = self._tls.wrap_socket(raw, server_hostname=self.host)


def _read_body(
    url: str, response: http.client.HTTPResponse, max_bytes: int, deadline: float
) -> bytes:
    declared = response.getheader("Content-Length")
    if declared is not None and declared.isdigit() and int(declared) > max_bytes:
        raise _too_large(url, int(declared), max_bytes)
    parts: list[bytes] = []
    size = 0
    while True:
        if time.monotonic() >= deadline:
            raise TimeoutError
        piece = response.read(_CHUNK)
        if not piece:
            return b"".join(parts)
        size += len(piece)
        if size > max_bytes:
            raise _too_large(url, size, max_bytes)
        parts.append(piece)


def _too_large(url: str, size: int, limit: int) -> IngestionError:
    return _refused(
        url,
        f"the body is over the {limit}-byte limit ({size} bytes so far); it was not truncated: "
        "raise --max-file-bytes to take it",
        "too_large",
    )


def _slow(url: str, timeout_s: float) -> IngestionError:
    return _refused(
        url,
        f"the server did not answer in full within {timeout_s:g} s; nothing was stored",
        "timeout",
    )


def redacted(url: str) -> str:
    """``url`` without any ``user:password@`` (never echoed in messages or reports)."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]).geturl()


def _refused(url: str, why: str, reason: str) -> IngestionError:
    shown = redacted(url)
    return IngestionError(f"{shown}: {why}", subject=shown, reason=reason)
