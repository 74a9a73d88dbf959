"""The guard in front of every HTTP route: Host, Origin, cross-site, bearer token, body.

A foreign ``Host`` is answered 421 and a foreign ``Origin`` 403 (DNS-rebinding safe: a page on
another site cannot reach a loopback server through a name it controls); with a token set,
every request needs ``Authorization: Bearer <token>`` (401 otherwise); a body over the limit is
answered 413 before it is read (a chunked body without a length, 411; both a length and a
transfer encoding, 400), and a body is read whole, counted against the limit, before any route
sees it, whatever its headers said. A browser's request from another origin
(``Sec-Fetch-Site`` other than ``same-origin`` or ``none``) is answered 403 before any work,
GET included, unless its Origin was allowed by name; a body that is not ``application/json``
is answered 415 and one with a repeated key 400. adr/0020, adr/0039, adr/0056.
"""

from __future__ import annotations

import hmac
import json
from typing import Any
from urllib.parse import urlsplit

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from groundkit_serve.settings import ServeSettings

__all__ = ["Guard", "host_name", "reply_error"]


def host_name(value: str) -> str:
    """The host part of a ``Host`` header (``[::1]:8765`` -> ``::1``), lower-cased."""
    value = value.strip().lower()
    if value.startswith("["):
        return value[1 : value.find("]")] if "]" in value else value
    return value.rsplit(":", 1)[0] if value.count(":") == 1 else value


def _origin(value: str) -> str:
    parts = urlsplit(value.strip().lower())
    host = parts.hostname or ""
    return f"{parts.scheme}://[{host}]" if ":" in host else f"{parts.scheme}://{host}"


class Guard:
    """ASGI middleware applying the checks to every HTTP request, before any route runs."""

    def __init__(self, app: ASGIApp, settings: ServeSettings) -> None:
        self.app = app
        self.hosts = frozenset(settings.host_patterns())
        self.origins = frozenset(settings.origin_patterns())
        self.named_origins = frozenset(_origin(o) for o in settings.allowed_origins)
        self.token = None if settings.token is None else settings.token.encode()
        self.max_body = settings.max_body_bytes

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1"): v.decode("latin-1") for k, v in scope["headers"]}
        refusal = self._refusal(headers)
        if refusal is not None:
            await reply_error(send, *refusal)
            return
        first = await self._read_body(receive)
        if first is None:
            await reply_error(
                send, 413, "too_large", f"the request body is over the {self.max_body}-byte limit"
            )
            return
        problem = _body_problem(first.get("body", b""), headers.get("content-type"))
        if problem is not None:
            await reply_error(send, *problem)
            return
        replayed = False

        async def replay() -> Message:
            nonlocal replayed
            if not replayed:
                replayed = True
                return first
            return await receive()

        await self.app(scope, replay, send)

    async def _read_body(self, receive: Receive) -> Message | None:
        """The whole body as one message, or None once it passes the limit (never buffered
        past it): a length header can lie, a count of the bytes received cannot."""
        parts: list[bytes] = []
        size = 0
        while True:
            message = await receive()
            if message["type"] != "http.request":
                return message  # a disconnect: hand it on as it is
            chunk = message.get("body", b"")
            size += len(chunk)
            if size > self.max_body:
                return None
            parts.append(chunk)
            if not message.get("more_body", False):
                return {"type": "http.request", "body": b"".join(parts), "more_body": False}

    def _refusal(self, headers: dict[str, str]) -> tuple[int, str, str] | None:
        if host_name(headers.get("host", "")) not in self.hosts:
            return 421, "misdirected", "this server does not answer for that Host"
        origin = headers.get("origin")
        if origin is not None and _origin(origin) not in self.origins:
            return 403, "forbidden_origin", "requests from that Origin are not allowed"
        site = (headers.get("sec-fetch-site") or "same-origin").strip().lower()
        named = origin is not None and _origin(origin) in self.named_origins
        if site not in _OWN_SITES and not named:
            return (
                403,
                "cross_site",
                (
                    "a browser request from another site or origin is not served; allow that "
                    "page's origin with --allow-origin"
                ),
            )
        if self.token is not None:
            scheme, _, given = headers.get("authorization", "").partition(" ")
            if scheme.lower() != "bearer" or not hmac.compare_digest(given.encode(), self.token):
                return 401, "unauthorized", "a valid 'Authorization: Bearer <token>' is required"
        length = headers.get("content-length")
        encoding = headers.get("transfer-encoding")
        if length is not None and encoding is not None:
            return 400, "invalid", "send a Content-Length or a Transfer-Encoding, not both"
        if length is None and "chunked" in (encoding or "").lower():
            return 411, "length_required", "send the body with a Content-Length"
        if length is not None and (not length.isdigit() or int(length) > self.max_body):
            return 413, "too_large", f"the request body is over the {self.max_body}-byte limit"
        return None


_OWN_SITES = frozenset({"same-origin", "none"})
"""``Sec-Fetch-Site`` values of a request a browser made for this origin's own page, or that
its user made (typed address, bookmark)."""


class _DuplicateKeyError(ValueError):
    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _DuplicateKeyError(key)
        found[key] = value
    return found


def _body_problem(body: bytes, content_type: str | None) -> tuple[int, str, str] | None:
    """A body that is not JSON by its Content-Type (415), or a JSON object naming a key twice
    (400: which value would count is a parser's accident). Malformed JSON is left to the
    route, which says so in its own words."""
    if not body:
        return None
    media = (content_type or "").split(";", 1)[0].strip().lower()
    if media != "application/json" and not media.endswith("+json"):
        return 415, "unsupported_media_type", "send the request body as application/json"
    try:
        json.loads(body, object_pairs_hook=_no_duplicates)
    except _DuplicateKeyError as exc:
        shown = exc.key if len(exc.key) <= 40 else exc.key[:40] + "..."
        return 400, "invalid", f"the JSON body names the key {shown!r} more than once"
    except (ValueError, RecursionError):
        return None
    return None


async def reply_error(send: Send, status: int, code: str, message: str) -> None:
    """Send the service's JSON error shape with ``status`` (the response must not have begun)."""
    body = json.dumps({"error": code, "message": message, "subject": None}).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})
