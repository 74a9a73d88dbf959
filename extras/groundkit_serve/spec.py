"""``ToolSpec``: one tool of the registry, as every transport sees it."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel

__all__ = ["CHUNK_URI", "ToolSpec"]

CHUNK_URI = "groundkit://chunks/{collection}/{chunk_id}"
"""The address of a chunk: the MCP resource template, and the connector shape's urls."""


@dataclass(frozen=True, slots=True)
class ToolSpec:
    """A name, a description, the pydantic request and reply models (their JSON Schemas are the
    tool's), and the synchronous function a worker thread runs."""

    name: str
    title: str
    description: str
    request: type[BaseModel]
    reply: type[BaseModel]
    run: Callable[[Any], BaseModel]
    long_running: bool = False
