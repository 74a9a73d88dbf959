"""One request on every surface (issue 41.1, 39.6): the same searches, valid and not, sent
through the library, the CLI, REST and MCP, held to the same answers and the same refusals.

Each case is written once as the wire body (what REST and MCP take); the library's request is
the same nesting as dataclasses, and the CLI's is its flags (None where argv cannot carry the
case: a JSON string or boolean where a number belongs). A refusal the library makes is the
same message on every surface; a refusal of a JSON type is REST's and MCP's one validator's.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path
from typing import Any

import httpx
import pytest
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client
from serving import Server
from test_mcp import run_session

import groundkit
from groundkit.cli.app import main

pytestmark = pytest.mark.subprocess
TIMEOUT = 30.0

VALID: list[tuple[dict[str, Any], list[str]]] = [
    ({"query": "report a leak", "top_k": 3}, ["report a leak", "--top-k", "3"]),
    ({"query": "leak", "top_k": 4, "mode": "bm25", "prefix": True},
     ["leak", "--top-k", "4", "--mode", "bm25", "--prefix"]),
    ({"query": "how do I pay my bill", "where": {"source_prefix": "billing/"}},
     ["how do I pay my bill", "--source-prefix", "billing/"]),
    ({"query": "pay bill", "top_k": 3, "where": {"metadata": {"heading_path": "Payment methods"}}},
     ["pay bill", "--top-k", "3", "--where", "heading_path=Payment methods"]),
    ({"query": "report a leak", "collection": "dense", "mode": "hybrid", "top_k": 4,
      "hybrid": {"rrf_k": 30, "weights": [1.0, 0.5]}},
     ["report a leak", "--collection", "dense", "--mode", "hybrid", "--top-k", "4",
      "--rrf-k", "30", "--dense-weight", "0.5"]),
    ({"query": "hydrnt flush", "fuzzy": True, "collection": "pages"},
     ["hydrnt flush", "--fuzzy", "--collection", "pages"]),
    ({"query": "pay bill", "top_k": 2, "group": {"passages": 2, "depth": 50}},
     ["pay bill", "--top-k", "2", "--group-passages", "2", "--group-depth", "50"]),
    ({"query": "who is allowed to remove a lockout padlock", "mode": "bm25", "lexical_bar": 0.0},
     ["who is allowed to remove a lockout padlock", "--mode", "bm25", "--lexical-bar", "0"]),
]  # fmt: skip

INVALID: list[tuple[dict[str, Any], list[str] | None]] = [
    ({"query": "leak", "mode": "bm25", "hybrid": {"rrf_k": 5}},
     ["leak", "--mode", "bm25", "--rrf-k", "5"]),
    ({"query": "leak", "hybrid": {"depth": 20}}, ["leak", "--depth", "20"]),  # default: bm25
    ({"query": "leak", "mode": "dense", "prefix": True}, ["leak", "--mode", "dense", "--prefix"]),
    ({"query": "leak", "mode": "bm25", "min_similarity": 0.2},
     ["leak", "--mode", "bm25", "--min-similarity", "0.2"]),
    ({"query": "leak", "collection": "dense", "mode": "hybrid", "lexical_bar": 0.3},
     ["leak", "--collection", "dense", "--mode", "hybrid", "--lexical-bar", "0.3"]),
    ({"query": "leak", "collection": "dense", "mode": "hybrid", "hybrid": {"weights": [0.0, 0.0]}},
     ["leak", "--collection", "dense", "--mode", "hybrid", "--lexical-weight", "0",
      "--dense-weight", "0"]),
    ({"query": "   "}, ["   "]),
    ({"query": "leak", "top_k": 0}, ["leak", "--top-k", "0"]),
    ({"query": "leak", "top_k": "5"}, None),
    ({"query": "leak", "top_k": True}, None),
    ({"query": "leak", "prefix": "yes"}, None),
    ({"query": "leak", "hybrid": {"rrf_k": "5"}, "mode": "hybrid", "collection": "dense"}, None),
    ({"query": "leak", "top_k": 20, "group": {"depth": 10}},
     ["leak", "--top-k", "20", "--group-depth", "10"]),
]  # fmt: skip


def library(index_dir: Path, body: dict[str, Any]) -> dict[str, Any]:
    """The library's answer to ``body`` (its request the same nesting as dataclasses), or
    ``{"refused": message}``."""
    fields = {k: v for k, v in body.items() if k not in ("collection", "verify")}
    try:
        if "hybrid" in fields:
            fusion = dict(fields["hybrid"])
            if "weights" in fusion:
                fusion["weights"] = tuple(fusion["weights"])
            fields["hybrid"] = groundkit.HybridOptions(**fusion)
        if "where" in fields:
            fields["where"] = groundkit.SearchFilter(**fields["where"])
        if "group" in fields:
            fields["group"] = groundkit.GroupOptions(**fields["group"])
        request = groundkit.SearchRequest(**fields)
        with groundkit.Searcher.open(index_dir, body.get("collection", "default")) as searcher:
            return _answer(searcher.search(request).to_dict())
    except groundkit.GroundkitError as exc:
        return {"refused": exc.message}


def _answer(reply: dict[str, Any]) -> dict[str, Any]:
    """What must agree: each result's chunk, score (every bit) and highlighted spans, and a
    grouped search's pages (each its document and its passages' positions)."""
    return {
        "results": [
            (r["chunk_id"], r["score"], [tuple(span) for span in r["highlights"]])
            for r in reply["results"]
        ],
        "groups": [(g["document_id"], list(g["results"])) for g in reply.get("groups") or []],
    }


def cli(index_dir: Path, argv: list[str]) -> tuple[int, dict[str, Any]]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["search", *argv, "--index-dir", str(index_dir), "--json"])
        except SystemExit as exc:  # argparse's own refusals
            code = int(exc.code or 0)
    if code != 0:
        return code, {"refused": err.getvalue() + out.getvalue()}
    return code, _answer(json.loads(out.getvalue()))


def rest(server: Server, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    reply = httpx.post(server.url + "/v1/search", json=body, timeout=TIMEOUT)
    if reply.status_code != 200:
        return reply.status_code, reply.json()
    return 200, _answer(reply.json())


def mcp(server: Server, bodies: list[dict[str, Any]]) -> list[tuple[bool, Any]]:
    """Each body as a ``search`` tool call over streamable HTTP: (refused, answer or text)."""
    replies: list[tuple[bool, Any]] = []

    async def body(session: ClientSession) -> None:
        for arguments in bodies:
            found = await session.call_tool("search", arguments)
            if found.is_error:
                replies.append((True, found.content[0].text))  # type: ignore[union-attr]
            else:
                assert found.structured_content is not None
                replies.append((False, _answer(found.structured_content)))

    run_session(streamable_http_client(server.url + "/mcp"), body)
    return replies


def test_valid_requests_get_the_same_answer_everywhere(server: Server, index_dir: Path) -> None:
    over_mcp = mcp(server, [body for body, _ in VALID])
    for (body, argv), (mcp_refused, mcp_answer) in zip(VALID, over_mcp, strict=True):
        want = library(index_dir, body)
        assert "refused" not in want and want["results"], body
        assert rest(server, body) == (200, want), body
        assert cli(index_dir, argv) == (0, want), argv
        assert (mcp_refused, mcp_answer) == (False, want), body


def test_invalid_requests_are_refused_alike_everywhere(server: Server, index_dir: Path) -> None:
    over_mcp = mcp(server, [body for body, _ in INVALID])
    for (body, argv), (mcp_refused, mcp_text) in zip(INVALID, over_mcp, strict=True):
        refused = library(index_dir, body)
        assert "refused" in refused, body
        status, error = rest(server, body)
        assert status == 422, (body, status)
        # one validator: REST's message is MCP's, word for word
        assert mcp_refused and mcp_text.endswith(f"{error['error']}: {error['message']}"), body
        by_library = not error["message"].startswith("invalid request:")  # not the schema's
        if by_library:  # refused by the library's request: its own words
            assert error["message"] == refused["refused"], body
        if argv is not None:
            code, said = cli(index_dir, argv)
            assert code == 2, (argv, said)
            if by_library:
                assert refused["refused"] in said["refused"], argv
