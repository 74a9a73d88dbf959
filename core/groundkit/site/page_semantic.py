"""Semantic search in the static site's worker (adr/0035): imported by ``web_app/semantic.js``
only when a visitor turns it on. The model's SHA-256 and the tokenizer are checked against the
collection's embedding identity here before the model runs; each query is tokenized here,
embedded by onnxruntime-web in JS, and given back before the (synchronous) search. The
floor ``enable`` is given is the model's (``site.json``): the search applies it only where the
site ships none of its own (adr/0070)."""

from __future__ import annotations

import json
from typing import Protocol

import groundkit
from groundkit.embedding.page import GivenQueryEmbedder
from groundkit.site.page_runtime import _state

__all__ = ["disable", "enable", "give", "query_ids"]


class _Bytes(Protocol):
    def to_bytes(self) -> bytes: ...


def enable(model_sha256: str, tokenizer_json: _Bytes, floor: float) -> None:
    reader = _state.reader
    if reader is None or reader.embedding_identity is None:
        raise groundkit.ConfigurationError("semantic search needs the site's own dense collection")
    given = GivenQueryEmbedder.for_identity(
        reader.embedding_identity,
        model_sha256=model_sha256,
        tokenizer_json=tokenizer_json.to_bytes(),
        floor=floor,
    )
    _state.retriever = groundkit.Searcher.of(reader, embedder=given)  # same reader, not closed
    _state.given = given


def disable() -> None:
    """Back to the collection's own embedder (none in the page): the model could not start."""
    if _state.reader is not None:
        _state.retriever = groundkit.Searcher.of(_state.reader)
    _state.given = None


def query_ids(query: str) -> str:
    return json.dumps(_state.given.tokenize(query))


def give(query: str, vector: str) -> None:
    _state.given.give(query, json.loads(vector))
