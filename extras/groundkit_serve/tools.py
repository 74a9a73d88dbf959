"""The one registry of tools: typed functions of the library that every transport serves.

Each tool is a ``ToolSpec``: a name, a description, a pydantic request and reply model (their
JSON Schemas are what MCP clients and the OpenAPI document show) and a synchronous function run
in a bounded pool of worker threads under a timeout. Errors leave as ``ServiceError`` with the
library's message. Logs carry the tool, collection, generation, counts and timings, never the
query or document text.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable

import anyio
import anyio.to_thread
from opentelemetry.trace import Span
from pydantic import BaseModel

from groundkit import (
    Chunk,
    Citation,
    CollectionVerification,
    Document,
    GroundkitError,
    Searcher,
    StoredCollection,
    Verification,
    __version__,
    citation_for,
    deadline,
    verify_document_citation,
)
from groundkit.extend import CollectionReader
from groundkit_serve import telemetry
from groundkit_serve.connector import connector_tools
from groundkit_serve.models import (
    CollectionInfo,
    CollectionList,
    FetchChunkRequest,
    FetchedChunk,
    NoArguments,
    SearchArguments,
    SearchReply,
    ServiceStatus,
    VerifyFailure,
    VerifyReply,
    VerifyRequest,
)
from groundkit_serve.runtime import Lease, Runtime
from groundkit_serve.searching import run_search, search_reply, search_request, verification_out
from groundkit_serve.service_errors import ServiceError, from_library, without_root
from groundkit_serve.spec import ToolSpec
from groundkit_serve.verifying import running_verifications, verify_in_child
from groundkit_serve.work import Work, current_work, reset_work, set_work

__all__ = ["Registry"]

log = logging.getLogger("groundkit.serve")
MAX_FAILURES_SHOWN = 100
VERIFY_RETRY_AFTER_S = 5
"""The ``Retry-After`` of a whole-collection verify refused past ``--max-verifies``."""


def _whole_collection(spec: ToolSpec, request: BaseModel) -> bool:
    """A verify of a whole collection: the long work that has its own lane (adr/0056)."""
    return (
        spec.long_running
        and getattr(request, "chunk_id", None) is None
        and getattr(request, "citation", None) is None
    )


def _trace_reply(span: Span, reply: BaseModel) -> None:
    """The reply's ids and counts on the tool's span; a search's stages as child spans."""
    telemetry.record(
        span,
        collection=getattr(reply, "collection", None),
        generation=getattr(reply, "generation", None),
        results=getattr(reply, "total_results", None),
    )
    if isinstance(reply, SearchReply):
        telemetry.stage_spans(reply.metadata.get("timings_ms", {}))


def _audit(checks: list[Verification]) -> CollectionVerification:
    """Single checks in the shape of the library's collection verification."""
    counts = {v: sum(c.verdict == v for c in checks) for v in ("verified", "drifted")}
    return CollectionVerification(
        checked=len(checks),
        verified=counts["verified"],
        drifted=counts["drifted"],
        unresolvable=len(checks) - counts["verified"] - counts["drifted"],
        integrity_problems=(),
        failures=tuple(c for c in checks if not c.ok),
    )


class Registry:
    """The tools over one ``Runtime``; ``call`` is what transports use."""

    def __init__(
        self, runtime: Runtime, *, sharded: Searcher | None = None, sharded_name: str = ""
    ) -> None:
        """``sharded``: a sharded search held elsewhere (Ray Serve's), searched as collection
        ``sharded_name`` by ``search``."""
        self.runtime = runtime
        self._sharded, self._sharded_name = sharded, sharded_name
        self.settings = runtime.settings
        self._limiter: anyio.CapacityLimiter | None = None
        self._verify_limiter: anyio.CapacityLimiter | None = None
        self._verifies = 0  # whole-collection verifies admitted now (event loop only)
        self._stoppable: set[anyio.CancelScope] = set()  # calls in flight (event loop only)
        self._counts = {"requests": 0, "errors": 0, "in_flight": 0}
        self._counts_lock = threading.Lock()
        self.tools: dict[str, ToolSpec] = {
            spec.name: spec
            for spec in (
                ToolSpec(
                    "search",
                    "Search a collection",
                    "Ranked passages for a query, each with its full citation (source, "
                    "0-based end-exclusive code-point offsets, line span) and, with verify, a "
                    "fresh verdict. Modes: bm25, dense, hybrid. No results with "
                    "metadata.abstained true means the collection says nothing here: no "
                    "passage holds enough of the query (its own calibrated bar), or, in bm25, "
                    "the query names a thing no passage mentions (metadata.absent_name).",
                    SearchArguments,
                    SearchReply,
                    self.search,
                ),
                ToolSpec(
                    "fetch_chunk",
                    "Fetch a chunk",
                    "A chunk's text and citation by chunk id, with a verdict re-checked "
                    "against its source now: verified, drifted or unresolvable.",
                    FetchChunkRequest,
                    FetchedChunk,
                    self.fetch_chunk,
                ),
                ToolSpec(
                    "verify",
                    "Verify citations",
                    "Re-read sources and compare: one chunk (chunk_id), one citation, or the "
                    "whole collection (neither), summarised as counts and the first failures.",
                    VerifyRequest,
                    VerifyReply,
                    self.verify,
                    long_running=True,
                ),
                ToolSpec(
                    "list_collections",
                    "List collections",
                    "The collections this server can search, with generation and size, or "
                    "why one cannot be served.",
                    NoArguments,
                    CollectionList,
                    self.list_collections,
                ),
                ToolSpec(
                    "status",
                    "Server status",
                    "The server's version, limits, open read views and request counts.",
                    NoArguments,
                    ServiceStatus,
                    self.status,
                ),
            )
        }
        self.connector_tools = connector_tools(self)

    # --- calling -------------------------------------------------------------------------

    async def call(
        self,
        spec: ToolSpec,
        request: BaseModel,
        *,
        progress: Callable[[int, int], None] | None = None,
    ) -> BaseModel:
        """Run ``spec`` in a worker thread, bounded in number and time; errors as ServiceError.

        A request that times out or is cancelled (an MCP client's ``notifications/cancelled``
        cancels this coroutine) has its ``Work`` cancelled, so the worker stops at its next
        check rather than running on unseen; ``progress`` receives a long tool's progress."""
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(self.settings.workers)
            self._verify_limiter = anyio.CapacityLimiter(self.settings.max_verifies)
        limit = self.settings.verify_timeout_s if spec.long_running else self.settings.timeout_s
        whole = _whole_collection(spec, request)  # its own lane, never a search thread
        laned = False
        started = time.perf_counter()
        status, code = 200, "ok"
        with telemetry.tool_span(spec.name) as span:
            telemetry.record(
                span,
                collection=getattr(request, "collection", None),
                mode=getattr(request, "mode", None),
                top_k=getattr(request, "top_k", None),
                chunk_id=getattr(request, "chunk_id", None),
            )
            work = Work(progress=progress)
            stoppable = anyio.CancelScope()
            token = set_work(work)  # the worker thread runs in a copy of this context
            with self._counts_lock:
                self._counts["in_flight"] += 1
            try:
                if whole:  # checked and counted on the event loop: no race between them
                    self._refuse_past_verify_limit()
                    self._verifies += 1
                    laned = True
                with anyio.fail_after(limit), anyio.CancelScope() as stoppable:
                    self._stoppable.add(stoppable)
                    reply = await anyio.to_thread.run_sync(
                        self._run,
                        spec,
                        request,
                        started + limit,
                        limiter=self._verify_limiter if whole else self._limiter,
                        abandon_on_cancel=True,
                    )
                if stoppable.cancel_called:  # cut by the end of --grace (adr/0056)
                    raise ServiceError(
                        503,
                        "stopping",
                        f"{spec.name} was stopped: the server is shutting down and its grace "
                        "period ended; send it again once the server is back",
                    )
                _trace_reply(span, reply)
                return reply
            except TimeoutError:
                status, code = 504, "timeout"
                raise ServiceError(
                    504,
                    "timeout",
                    f"{spec.name} did not finish within {limit:g} s (the server's limit); "
                    "try a narrower request",
                ) from None
            except ServiceError as exc:
                status, code = exc.status, exc.code
                raise
            except Exception:
                status, code = 500, "internal"
                raise
            finally:
                work.cancel.set()  # done or not, nothing more of this request may run
                self._stoppable.discard(stoppable)
                self._verifies -= laned
                reset_work(token)
                elapsed = round((time.perf_counter() - started) * 1000, 3)
                telemetry.record(span, status=status, error=code, duration_ms=elapsed)
                with self._counts_lock:
                    self._counts["in_flight"] -= 1
                    self._counts["requests"] += 1
                    self._counts["errors"] += status >= 400
                log.info(
                    "request",
                    extra={"tool": spec.name, "status": status, "duration_ms": elapsed},
                )

    def _refuse_past_verify_limit(self) -> None:
        if self._verifies >= self.settings.max_verifies:
            raise ServiceError(
                429,
                "busy",
                f"{self._verifies} whole-collection verify already running, this server's "
                "limit (--max-verifies); try again later",
                retry_after=VERIFY_RETRY_AFTER_S,
            )

    def stop_in_flight(self) -> None:
        """End every call in flight now, each answered 503 ``stopping`` (the event loop's
        thread only): the grace is over, and no client is left waiting on a closing server."""
        for scope in list(self._stoppable):
            scope.cancel()

    def in_flight(self) -> int:
        """Tool calls under way now (the shutdown drain waits for them)."""
        return self._counts["in_flight"]

    def count_internal_error(self) -> None:
        """Count a request that failed outside any tool (answered 500 by the HTTP layer)."""
        with self._counts_lock:
            self._counts["requests"] += 1
            self._counts["errors"] += 1

    def _run(self, spec: ToolSpec, request: BaseModel, ends: float) -> BaseModel:
        """``spec.run(request)`` under the core's deadline, so that a search past the server's
        limit stops itself (adr/0061) instead of running on after its 504."""
        try:
            with deadline(max(ends - time.perf_counter(), 1e-3)):
                return spec.run(request)
        except GroundkitError as exc:
            raise from_library(exc, self.settings.index_dir) from None
        except ServiceError as exc:  # the verify child's, in the library's words
            exc.message = without_root(exc.message, self.settings.index_dir)
            raise
        except ValueError as exc:  # a value type refused what the request built
            raise ServiceError(400, "invalid", str(exc)) from None

    # --- the tools -----------------------------------------------------------------------

    def search(self, request: SearchArguments) -> SearchReply:
        wanted = search_request(request, self.settings.max_top_k)
        if self._sharded is not None and request.collection == self._sharded_name:
            response, checks = run_search(self._sharded, wanted, verify=request.verify)
            return search_reply(response, self._sharded_name, self._sharded.generation, checks)
        if request.rerank is not None:
            self.runtime.reranker_required()
        with self.runtime.lease(request.collection) as lease:
            response, checks = run_search(lease.searcher, wanted, verify=request.verify)
        log.info(
            "search",
            extra={
                "collection": lease.collection,
                "generation": lease.generation,
                "mode": response.metadata.get("mode"),
                "top_k": request.top_k,
                "results": len(response.results),
            },
        )
        return search_reply(response, lease.collection, lease.generation, checks)

    def _chunk(self, lease: Lease, chunk_id: str) -> tuple[Chunk, Document, CollectionReader]:
        """The chunk, its document and the store (a shard's, when sharded) that holds them."""
        found = ((r.chunk_by_id(chunk_id), r) for r in lease.readers)
        chunk, reader = next(((c, r) for c, r in found if c is not None), (None, None))
        if chunk is None or reader is None:
            raise ServiceError(
                404,
                "not_found",
                f"no chunk with id {chunk_id} in collection {lease.collection} at generation "
                f"{lease.generation}; ids come from search results and change when a document "
                "is re-ingested",
                chunk_id,
            )
        document = reader.documents([chunk.document_id]).get(chunk.document_id)
        if document is None:
            raise ServiceError(
                500,
                "inconsistent",
                f"collection {lease.collection}: chunk {chunk_id} has no document record; "
                "run `groundkit verify` and re-ingest",
                chunk_id,
            )
        return chunk, document, reader

    def fetch_chunk(self, request: FetchChunkRequest) -> FetchedChunk:
        with self.runtime.lease(request.collection) as lease:
            chunk, document, reader = self._chunk(lease, request.chunk_id)
        citation = citation_for(chunk, document)
        check = verify_document_citation(citation, document, reader.location)
        return FetchedChunk(
            collection=lease.collection,
            generation=lease.generation,
            chunk_id=chunk.chunk_id,
            document_id=document.document_id,
            content=chunk.text,
            source=citation.source,
            source_class=citation.source_class,
            start_offset=citation.start_offset,
            end_offset=citation.end_offset,
            start_line=citation.start_line,
            end_line=citation.end_line,
            start_page=citation.start_page,
            end_page=citation.end_page,
            extractor=None if document.extractor is None else json.loads(document.extractor),
            metadata={**chunk.metadata, "chunk_index": chunk.chunk_index},
            verification=verification_out(check),
        )

    def verify(self, request: VerifyRequest) -> VerifyReply:
        if request.chunk_id is not None and request.citation is not None:
            raise ServiceError(422, "invalid", "pass chunk_id or citation, not both")
        if request.chunk_id is None and request.citation is None:
            # the whole collection: in a child process, holding no read view (adr/0040)
            collection = self.runtime.name(request.collection)
            self.runtime.probe(collection)  # a missing or damaged collection fails here
            generation, audit = verify_in_child(self.settings.index_dir, collection, current_work())
        else:
            with self.runtime.lease(request.collection) as lease:
                collection, generation = lease.collection, lease.generation
                if request.chunk_id is not None:
                    chunk, document, reader = self._chunk(lease, request.chunk_id)
                    citation, location = citation_for(chunk, document), reader.location
                else:
                    citation, document, location = self._cited(lease, request)
            audit = _audit([verify_document_citation(citation, document, location)])
        return VerifyReply(
            collection=collection,
            generation=generation,
            checked=audit.checked,
            verified=audit.verified,
            drifted=audit.drifted,
            unresolvable=audit.unresolvable,
            integrity_problems=list(audit.integrity_problems),
            failures=[
                VerifyFailure(
                    source=c.citation.source,
                    start_offset=c.citation.start_offset,
                    end_offset=c.citation.end_offset,
                    verdict=c.verdict,
                    reason=c.reason,
                )
                for c in audit.failures[:MAX_FAILURES_SHOWN]
            ],
            failures_total=len(audit.failures),
        )

    def _cited(self, lease: Lease, request: VerifyRequest) -> tuple[Citation, Document, str]:
        """A client's citation as one of this collection's documents would cite it (checked
        only against a document of this collection), that document, and its store."""
        cited = request.citation
        assert cited is not None
        candidates: list[tuple[Document, CollectionReader]] = []
        for reader in lease.readers:  # a sharded collection: every shard's
            if cited.document_id is not None:
                found = reader.documents([cited.document_id]).get(cited.document_id)
                if found is not None and found.source == cited.source:
                    candidates.append((found, reader))
            else:
                candidates += [
                    (d, reader) for d in reader.iter_documents() if d.source == cited.source
                ]
        if not candidates:
            raise ServiceError(
                404,
                "not_found",
                f"collection {lease.collection} has no document {cited.source!r}"
                + (f" with id {cited.document_id}" if cited.document_id else "")
                + "; only sources of the collection can be verified",
                cited.source,
            )
        if len(candidates) > 1:
            raise ServiceError(
                400,
                "ambiguous",
                f"{len(candidates)} documents of collection {lease.collection} have source "
                f"{cited.source!r} (different roots); pass the result's document_id",
                cited.source,
            )
        document, reader = candidates[0]
        citation = Citation(  # lines are for people only; verification compares the span
            source=document.source,
            source_class=document.source_class,
            start_offset=cited.start_offset,
            end_offset=cited.end_offset,
            text=cited.text,
            start_line=1,
            end_line=1,
            extractor=document.extractor,  # an extracted source is re-extracted, same identity
        )
        return citation, document, reader.location

    def list_collections(self, _: NoArguments | None = None) -> CollectionList:
        infos: list[CollectionInfo] = []
        for name in self.runtime.collections():
            sharded = self.runtime.sharded(name)
            try:
                self.runtime.probe(name)  # changed outside groundkit, or a shard gone: not ok
                status = StoredCollection(self.settings.index_dir, name).status()
            except GroundkitError as exc:
                infos.append(CollectionInfo(name=name, ok=False, error=exc.message))
                continue
            embedding = status.get("embedding")
            infos.append(
                CollectionInfo(
                    name=name,
                    ok=True,
                    generation=status["generation"],
                    documents=None if sharded else status["documents"],
                    chunks=status["chunks"],
                    shards=status["shards"] if sharded else None,
                    embedding=None if not embedding else str(embedding.get("model")),
                )
            )
        return CollectionList(
            index_dir=str(self.settings.index_dir),
            default_collection=self.settings.collection,
            collections=infos,
        )

    def status(self, _: NoArguments | None = None) -> ServiceStatus:
        with self._counts_lock:
            counts = dict(self._counts)
        running, cancelled = running_verifications()
        return ServiceStatus(
            version=__version__,
            index_dir=str(self.settings.index_dir),
            default_collection=self.settings.collection,
            open_collections=self.runtime.open_generations(),
            max_open_collections=self.settings.max_open_collections,
            max_top_k=self.settings.max_top_k,
            workers=self.settings.workers,
            processes=self.settings.processes,
            process=os.getpid(),
            timeout_s=self.settings.timeout_s,
            requests=counts["requests"],
            errors=counts["errors"],
            threads=threading.active_count(),
            verifications_running=running,
            verifications_cancelled=cancelled,
            refreshes=self.runtime.refreshes,
            refresh_errors=dict(self.runtime.refresh_errors),
            uptime_s=round(time.monotonic() - self.runtime.started, 3),
        )
