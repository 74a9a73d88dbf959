"""A REST call that ends when its client goes: the client that disconnects (``curl -m 2``, a
closed tab) cancels its work, as an MCP client's ``notifications/cancelled`` does (adr/0056)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

import anyio
from starlette.requests import Request

__all__ = ["ClientGoneError", "until_disconnected"]

T = TypeVar("T")


class ClientGoneError(Exception):
    """The client disconnected before its answer: there is no one to answer."""


async def until_disconnected(request: Request, call: Callable[[], Awaitable[T]]) -> T:
    """``await call()``, cancelled (``ClientGoneError``) once ``request``'s client disconnects; the
    request's body must have been read already (the route's fields come first)."""
    done: list[T] = []
    failed: list[Exception] = []
    async with anyio.create_task_group() as group:

        async def watch() -> None:
            while (await request.receive())["type"] != "http.disconnect":
                pass
            group.cancel_scope.cancel()

        group.start_soon(watch)
        try:  # raised past the group, an error would come out wrapped in an ExceptionGroup
            done.append(await call())
        except Exception as exc:
            failed.append(exc)
        group.cancel_scope.cancel()
    if failed:
        raise failed[0]
    if not done:
        raise ClientGoneError
    return done[0]
