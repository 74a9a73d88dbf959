"""``groundkit serve``: the service (MCP over stdio or HTTP, and REST), from the ``serve`` extra.

A command this extra's plugin adds (adr/0053). Building its parser needs only the standard
library and ``groundkit.extend``; the service's packages (the MCP SDK, Starlette, pydantic)
are imported when it runs, and without them it exits 2 naming the install. Every flag maps to
a field of ``groundkit_serve.ServeSettings`` (adr/0020).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from groundkit.extend import ConfigurationError, ExitCode, Parents, install_hint, shard_engine

__all__ = ["INSTALL", "NAME", "TOKEN_ENV", "add_parser", "run"]

NAME = "serve"

INSTALL = 'pip install ".[serve]"'
TOKEN_ENV = "GROUNDKIT_SERVE_TOKEN"

EPILOG = f"""\
examples:
  groundkit serve --stdio --index-dir .groundkit          # for an MCP client that spawns it
  groundkit serve --http --port 8765                      # REST /v1/..., MCP /mcp, 127.0.0.1
  curl 'http://127.0.0.1:8765/v1/search?q=report+a+leak&top_k=3'
  {TOKEN_ENV}=... groundkit serve --http --host 0.0.0.0 --allow-host search.example.org

Binding beyond loopback needs a bearer token (--token-file or ${TOKEN_ENV}). The service is
read-only: ingest with `groundkit ingest`; a running server serves the new generation.
"""


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"expected a number >= 0, got {value}")
    return value


def add_parser(commands: Any, parents: Parents) -> None:
    serve = commands.add_parser(
        NAME,
        parents=[parents.collection],
        help="serve search over MCP (stdio or HTTP) and REST (needs the serve extra)",
        description=(
            "Serve the collections under --index-dir as one read-only tool registry: search, "
            "fetch_chunk, verify, list_collections, status. --stdio speaks MCP on "
            "stdin/stdout; --http serves REST (/v1/...) and MCP streamable HTTP (/mcp). "
            "--collection names the default collection. Needs: " + INSTALL
        ),
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    how = serve.add_mutually_exclusive_group(required=True)
    how.add_argument("--stdio", action="store_true", help="MCP over stdin/stdout")
    how.add_argument("--http", action="store_true", help="REST and MCP over HTTP")
    _http_flags(serve)
    _limit_flags(serve, parents)
    serve.add_argument(
        "--connector",
        action="store_true",
        help="MCP tools in the two-tool connector shape (search -> ids, fetch -> text)",
    )
    serve.add_argument(
        "--reranker",
        metavar="NAME|DIR",
        default=None,
        help="a registered reranker, or an ONNX cross-encoder folder, for rerank requests",
    )
    serve.add_argument("--log-json", action="store_true", help="JSON log lines on stderr")
    _ray_flags(serve)


def _http_flags(serve: argparse.ArgumentParser) -> None:
    """Where the HTTP server listens and whom it answers."""
    net = serve.add_argument_group("HTTP")
    net.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1)")
    net.add_argument("--port", type=_count, default=8765, help="port (default: 8765; 0: any)")
    net.add_argument(
        "--token-file",
        metavar="FILE",
        default=None,
        help=f"require 'Authorization: Bearer <token>' with the token in FILE (or ${TOKEN_ENV});"
        " required when binding beyond loopback",
    )
    net.add_argument(
        "--allow-host",
        action="append",
        default=[],
        metavar="NAME",
        help="also answer for this Host name (a proxy's); repeatable",
    )
    net.add_argument(
        "--allow-origin",
        action="append",
        default=[],
        metavar="ORIGIN",
        help="also accept requests from this Origin (scheme://host); repeatable",
    )


def _limit_flags(serve: argparse.ArgumentParser, parents: Parents) -> None:
    """What one request, one verify and the whole server may take."""
    limits = serve.add_argument_group("limits")
    limits.add_argument("--max-top-k", type=_count, default=50, help="top_k cap (default: 50)")
    limits.add_argument(
        "--max-body", type=_count, default=64 * 1024, metavar="BYTES", help="request body cap"
    )
    limits.add_argument(
        "--timeout",
        type=parents.positive_seconds,
        default=10.0,
        metavar="S",
        help="per request (default: 10)",
    )
    limits.add_argument(
        "--verify-timeout",
        type=parents.positive_seconds,
        default=300.0,
        metavar="S",
        help="per whole-collection verify, which runs in its own process (default: 300)",
    )
    limits.add_argument(
        "--workers", type=_count, default=4, help="threads for search work (default: 4)"
    )
    limits.add_argument(
        "--processes",
        type=_count,
        default=None,
        metavar="N",
        help="--http: server processes sharing one listening socket, each with its own read "
        "views, so search uses N cores (default: the cores this process may use; 1 with "
        "--stdio or --ray-collection)",
    )
    limits.add_argument(
        "--max-verifies",
        type=_count,
        default=1,
        metavar="N",
        help="whole-collection verifies at once, each in its own process and never in a "
        "search thread; more are refused with 429 and Retry-After (default: 1)",
    )
    limits.add_argument(
        "--grace",
        type=parents.seconds_or_zero,
        default=5.0,
        metavar="S",
        help="on SIGTERM or Ctrl-C, let requests in flight (REST and MCP) finish for up to S "
        "seconds before stopping (default: 5; 0 stops at once)",
    )
    limits.add_argument(
        "--max-open",
        type=_count,
        default=8,
        metavar="N",
        help="collections kept open at once, least recently used closed first (default: 8)",
    )


def _ray_flags(serve: argparse.ArgumentParser) -> None:
    """A sharded collection deployed on Ray Serve."""
    ray = serve.add_argument_group("Ray Serve (the ray extra)")
    ray.add_argument(
        "--ray-collection",
        metavar="NAME",
        default=None,
        help="also deploy sharded collection NAME (under --index-dir, which every Ray node "
        "must see) on Ray Serve, one deployment per shard, searched by search (REST "
        "/v1/search) with collection NAME",
    )
    ray.add_argument(
        "--ray-address",
        metavar="ADDR",
        default=None,
        help="the Ray cluster to deploy on (e.g. auto; default: $RAY_ADDRESS, else a local "
        "instance started here)",
    )
    ray.add_argument(
        "--ray-replicas", type=_count, default=1, metavar="N", help="replicas a shard (default: 1)"
    )


def _token(args: argparse.Namespace) -> str | None:
    if args.token_file is not None:
        try:
            token = Path(args.token_file).read_text(encoding="utf-8").strip()
        except OSError as exc:
            raise ConfigurationError(
                f"cannot read the token file {args.token_file}: {exc.strerror}",
                subject=args.token_file,
            ) from None
        if not token:
            raise ConfigurationError(f"the token file {args.token_file} is empty")
        return token
    return os.environ.get(TOKEN_ENV) or None


def _processes(args: argparse.Namespace) -> int:
    """How many server processes: one where they cannot be shared (stdio, Ray's handles)."""
    from groundkit_serve.processes import available_cores  # the standard library's only

    single = args.stdio or args.ray_collection is not None
    if args.processes is None:
        return 1 if single or not hasattr(os, "fork") else available_cores()
    if args.processes > 1 and single:
        raise ConfigurationError(
            "--processes over 1 needs --http without --ray-collection (a stdio client talks to "
            "one process; Ray Serve's handles do not survive a fork)"
        )
    if args.processes > 1 and not hasattr(os, "fork"):
        raise ConfigurationError("--processes over 1 needs os.fork (Linux, macOS)")
    return int(args.processes)


def run(args: argparse.Namespace) -> int:
    """Run the service until interrupted; 2 when the extra is missing or a flag is refused."""
    try:
        from groundkit_serve.http_app import PortInUseError, run_http, run_stdio
        from groundkit_serve.settings import ServeSettings
    except ImportError as exc:
        print(
            f"groundkit: error: `groundkit serve` needs the serve extra ({exc}); install it "
            f"from a clone of groundkit with: {INSTALL} (PyPI's `groundkit` is another project)",
            file=sys.stderr,
        )
        return ExitCode.USAGE
    from groundkit import resolve_reranker

    reranker = None if args.reranker is None else resolve_reranker(args.reranker)
    settings = ServeSettings(
        processes=_processes(args),
        index_dir=Path(args.index_dir),
        collection=args.collection,
        host=args.host,
        port=args.port,
        token=_token(args),
        allowed_hosts=tuple(args.allow_host),
        allowed_origins=tuple(args.allow_origin),
        max_top_k=args.max_top_k,
        max_body_bytes=args.max_body,
        timeout_s=args.timeout,
        verify_timeout_s=args.verify_timeout,
        grace_s=args.grace,
        workers=args.workers,
        max_verifies=args.max_verifies,
        max_open_collections=args.max_open,
        connector=args.connector,
        json_logs=args.log_json,
    )
    sharded = None
    if args.ray_collection is not None:
        engine = shard_engine("ray")
        if engine.serve is None:
            raise ConfigurationError(
                f"the installed shard engine 'ray' cannot serve; reinstall: {install_hint('ray')}"
            )
        tool = engine.serve(
            args.ray_collection,
            index_dir=args.index_dir,
            replicas=args.ray_replicas,
            address=args.ray_address,
            reranker=reranker,
        )
        sharded = (tool, args.ray_collection)
    try:
        if args.stdio:
            run_stdio(settings, reranker=reranker, sharded=sharded)
        else:
            run_http(settings, reranker=reranker, sharded=sharded)
    except PortInUseError as exc:  # its own exit code: a script can pick another port
        print(f"groundkit: error: {exc.message}", file=sys.stderr)
        return ExitCode.PORT_IN_USE
    except KeyboardInterrupt:  # Ctrl-C stops a server: no traceback, the shell's 130
        return 130
    return ExitCode.OK
