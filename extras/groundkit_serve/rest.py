"""The registry as a REST API on Starlette: ``/v1/search``, ``/v1/chunks/{id}``, ``/v1/verify``,
``/v1/collections``, ``/v1/status``, and its OpenAPI document at ``/openapi.json``.

Bodies and replies are the tools' pydantic models; errors are ``{"error", "message",
"subject"}`` with the status of ``groundkit_serve.service_errors`` (validation: 422).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from groundkit import __version__
from groundkit_serve.disconnect import ClientGoneError, until_disconnected
from groundkit_serve.models import (
    ErrorBody,
    FetchChunkRequest,
    NoArguments,
    SearchArguments,
    invalid_message,
)
from groundkit_serve.service_errors import ServiceError
from groundkit_serve.spec import ToolSpec
from groundkit_serve.tools import Registry

__all__ = ["openapi", "rest_routes"]

Handler = Callable[[Request], Awaitable[Response]]
# Query parameters are parsed by these ASCII-only shapes: ``str.isdigit`` and ``float`` also
# take superscripts and other scripts' digits ("²", "٣"), which int() refuses or reads silently.
_INTEGER = re.compile(r"-?[0-9]{1,18}")
_NUMBER = re.compile(r"-?[0-9]{1,18}(\.[0-9]{1,18})?([eE][-+]?[0-9]{1,3})?")
_BOOLEANS = {"true": True, "1": True, "yes": True, "false": False, "0": False, "no": False}
_KINDS = {"integer": _INTEGER, "number": _NUMBER}


def _error(exc: ServiceError) -> JSONResponse:
    headers = None if exc.retry_after is None else {"Retry-After": str(exc.retry_after)}
    return JSONResponse(exc.to_dict(), status_code=exc.status, headers=headers)


def _invalid(exc: ValidationError) -> JSONResponse:
    """422 naming each field at fault and why (never echoing the values)."""
    return JSONResponse(
        {"error": "invalid", "message": invalid_message(exc), "subject": None},
        status_code=422,
    )


def _refused(name: str, why: str) -> ServiceError:
    return ServiceError(422, "invalid", f"invalid request: {name}: {why}", name)


@functools.cache
def query_parameters(
    model: type[BaseModel], exclude: frozenset[str] = frozenset()
) -> dict[str, dict[str, Any]]:
    """Each field of ``model`` a GET query may carry, as its OpenAPI schema: ``query`` is
    ``q``, a nested object's scalar fields are dotted (``hybrid.rrf_k``, ``where.source_prefix``,
    ``rerank.depth``); lists and maps (``hybrid.weights``, ``where.metadata``) need a JSON body.
    The types the parser and the document both use, built once per model."""
    document = model.model_json_schema()
    schemas: dict[str, dict[str, Any]] = {}

    def visit(properties: dict[str, Any], prefix: str) -> None:
        for name, schema in properties.items():
            choices = [s for s in schema.get("anyOf", [schema]) if s.get("type") != "null"]
            if name in exclude or not choices:
                continue
            ref = choices[0].get("$ref")
            if ref is not None:
                nested = document["$defs"][ref.rsplit("/", 1)[-1]]
                visit(nested["properties"], f"{prefix}{name}.")
                continue
            if choices[0].get("type") in ("object", "array"):
                continue
            shape = {k: v for k, v in choices[0].items() if k != "title"}
            if "description" in schema:
                shape.setdefault("description", schema["description"])
            schemas["q" if name == "query" and not prefix else prefix + name] = shape

    visit(document["properties"], "")
    return schemas


def _from_query(
    request: Request, model: type[BaseModel], exclude: frozenset[str] = frozenset()
) -> dict[str, Any]:
    """GET query parameters as request fields, each parsed by its declared type; an undeclared
    parameter, a repeated one, or a value of the wrong shape is refused (422) by name."""
    declared = query_parameters(model, exclude)
    values: dict[str, Any] = {}
    for key in request.query_params:
        if key not in declared:
            raise _refused(key, f"not a parameter here (known: {', '.join(sorted(declared))})")
        given = request.query_params.getlist(key)
        if len(given) > 1:
            raise _refused(key, "given more than once")
        value, kind = given[0], declared[key].get("type")
        name = "query" if key == "q" else key
        if kind in _KINDS:
            if not _KINDS[kind].fullmatch(value):
                what = "a whole number" if kind == "integer" else "a number"
                raise _refused(key, f"expected {what} in ASCII digits")
            parsed: Any = int(value) if kind == "integer" else float(value)
        elif kind == "boolean":
            if value.lower() not in _BOOLEANS:
                raise _refused(key, "expected true or false")
            parsed = _BOOLEANS[value.lower()]
        else:
            parsed = value
        outer, dot, inner = name.partition(".")
        if dot:
            values.setdefault(outer, {})[inner] = parsed
        else:
            values[name] = parsed
    return values


def _endpoint(
    registry: Registry, spec: ToolSpec, fields: Callable[[Request], Awaitable[dict[str, Any]]]
) -> Handler:
    async def handle(request: Request) -> Response:
        try:
            parsed = spec.request.model_validate(await fields(request))
        except ValidationError as exc:
            return _invalid(exc)
        except ServiceError as exc:
            return _error(exc)
        try:
            reply = await until_disconnected(request, lambda: registry.call(spec, parsed))
        except ClientGoneError:  # its work was cancelled; this answer is never read
            return Response(status_code=499)
        except ServiceError as exc:
            return _error(exc)
        except Exception:  # counted and logged by registry.call; answered in the JSON shape
            body = {"error": "internal", "message": f"{spec.name} failed", "subject": None}
            return JSONResponse(body, status_code=500)
        return Response(reply.model_dump_json(), media_type="application/json")

    return handle


async def _search_query(request: Request) -> dict[str, Any]:
    return _from_query(request, SearchArguments)


async def _json_fields(request: Request) -> dict[str, Any]:
    if request.query_params:
        names = ", ".join(sorted(request.query_params))
        raise _refused(names, "send every field in the JSON body, not the query string")
    try:
        body = await request.json()
    except (ValueError, RecursionError):  # RecursionError: a body nested thousands deep
        raise ServiceError(
            400, "invalid", "the request body is not JSON (or nested too deep)"
        ) from None
    if not isinstance(body, dict):
        raise ServiceError(400, "invalid", "the request body must be a JSON object")
    return body


async def _chunk_fields(request: Request) -> dict[str, Any]:
    fields = _from_query(request, FetchChunkRequest, _PATH_FIELDS)
    return {**fields, "chunk_id": request.path_params["chunk_id"]}


_PATH_FIELDS = frozenset({"chunk_id"})


async def _no_fields(request: Request) -> dict[str, Any]:
    if request.query_params:
        raise _refused(", ".join(sorted(request.query_params)), "this endpoint takes no parameters")
    return {}


def rest_routes(registry: Registry) -> list[Route]:
    """The REST routes over ``registry``'s tools."""
    tools = registry.tools
    search_get = _endpoint(registry, tools["search"], _search_query)
    search_post = _endpoint(registry, tools["search"], _json_fields)

    async def search(request: Request) -> Response:
        return await (search_get if request.method == "GET" else search_post)(request)

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi(registry))

    async def healthz(request: Request) -> Response:  # a query string is ignored (adr/0056)
        return JSONResponse({"status": "ok"})

    async def readyz(request: Request) -> Response:
        listed = registry.list_collections()
        default = next((c for c in listed.collections if c.name == listed.default_collection), None)
        if default is None or not default.ok:
            why = "not found" if default is None else default.error
            message = (
                f"the default collection {listed.default_collection!r} cannot be served: {why}"
            )
            body = {"error": "not_ready", "message": message, "subject": listed.default_collection}
            return JSONResponse(body, status_code=503)
        if default.name not in registry.runtime.warmed:  # opened, its tables built
            registry.runtime.preload_soon(default.name)  # it may have come after the start
            message = f"the default collection {default.name!r} is being opened and warmed"
            body = {"error": "not_ready", "message": message, "subject": default.name}
            return JSONResponse(body, status_code=503, headers={"Retry-After": "1"})
        ready = [c.name for c in listed.collections if c.ok]
        return JSONResponse({"status": "ready", "collections": ready})

    async def docs(request: Request) -> Response:
        return HTMLResponse(_DOCS)

    return [
        Route("/v1/search", search, methods=["GET", "POST"]),
        Route(
            "/v1/chunks/{chunk_id}",
            _endpoint(registry, tools["fetch_chunk"], _chunk_fields),
            methods=["GET"],
        ),
        Route("/v1/verify", _endpoint(registry, tools["verify"], _json_fields), methods=["POST"]),
        Route(
            "/v1/collections",
            _endpoint(registry, tools["list_collections"], _no_fields),
            methods=["GET"],
        ),
        Route("/v1/status", _endpoint(registry, tools["status"], _no_fields), methods=["GET"]),
        Route("/healthz", healthz, methods=["GET"]),
        Route("/readyz", readyz, methods=["GET"]),
        Route("/openapi.json", openapi_json, methods=["GET"]),
        Route("/docs", docs, methods=["GET"]),
    ]


_DOCS = """<!doctype html><meta charset="utf-8"><title>groundkit REST API</title>
<h1>groundkit REST API</h1>
<p>The OpenAPI document is at <a href="/openapi.json">/openapi.json</a>. MCP (streamable
HTTP) is at <code>/mcp</code>.</p>
<ul>
<li><code>GET /v1/search?q=...&amp;top_k=5</code> or <code>POST /v1/search</code> (JSON body)</li>
<li><code>GET /v1/chunks/{chunk_id}?collection=...</code></li>
<li><code>POST /v1/verify</code></li>
<li><code>GET /v1/collections</code>, <code>GET /v1/status</code></li>
<li><code>GET /healthz</code> (liveness), <code>GET /readyz</code> (the default collection
opens)</li>
</ul>
"""


def _schema_ref(model: type[BaseModel], schemas: dict[str, Any]) -> dict[str, str]:
    schema = model.model_json_schema(ref_template="#/components/schemas/{model}")
    schemas.update(schema.pop("$defs", {}))
    schemas[model.__name__] = schema
    return {"$ref": f"#/components/schemas/{model.__name__}"}


def openapi(registry: Registry) -> dict[str, Any]:
    """The OpenAPI 3.1 document of the REST API, from the tools' models."""
    schemas: dict[str, Any] = {}
    error = {"content": {"application/json": {"schema": _schema_ref(ErrorBody, schemas)}}}

    def operation(
        spec: ToolSpec, *, body: bool, parameters: list[Any], operation_id: str = ""
    ) -> dict[str, Any]:
        op: dict[str, Any] = {
            "operationId": operation_id or spec.name,
            "summary": spec.title,
            "description": spec.description,
            "responses": {
                "200": {
                    "description": "OK",
                    "content": {"application/json": {"schema": _schema_ref(spec.reply, schemas)}},
                },
                **{str(s): {"description": d, **error} for s, d in _ERRORS.items()},
            },
        }
        if body and spec.request is not NoArguments:
            op["requestBody"] = {
                "required": True,
                "content": {"application/json": {"schema": _schema_ref(spec.request, schemas)}},
            }
        if parameters:
            op["parameters"] = parameters
        return op

    def query(model: type[BaseModel], exclude: frozenset[str] = frozenset()) -> list[Any]:
        return [
            {"name": name, "in": "query", "required": name == "q", "schema": schema}
            for name, schema in query_parameters(model, exclude).items()
        ]

    tools = registry.tools
    chunk_id = {
        "name": "chunk_id",
        "in": "path",
        "required": True,
        "schema": {"type": "string", "pattern": FetchChunkRequest.model_fields["chunk_id"]
                   .metadata[0].pattern},
    }  # fmt: skip
    paths: dict[str, Any] = {
        "/v1/search": {
            "get": operation(
                tools["search"],
                body=False,
                parameters=query(SearchArguments),
                operation_id="search_get",
            ),
            "post": operation(tools["search"], body=True, parameters=[]),
        },
        "/v1/chunks/{chunk_id}": {
            "get": operation(
                tools["fetch_chunk"],
                body=False,
                parameters=[chunk_id, *query(FetchChunkRequest, _PATH_FIELDS)],
            )
        },
        "/v1/verify": {"post": operation(tools["verify"], body=True, parameters=[])},
        "/v1/collections": {"get": operation(tools["list_collections"], body=False, parameters=[])},
        "/v1/status": {"get": operation(tools["status"], body=False, parameters=[])},
        "/healthz": {"get": _probe("healthz", "liveness: 200 while the server runs", error)},
        "/readyz": {
            "get": _probe("readyz", "readiness: 200 once the default collection opens", error)
        },
    }
    _declare_top_k_cap(paths, registry.settings.max_top_k)
    _declare_top_k_cap(schemas, registry.settings.max_top_k)
    document: dict[str, Any] = {
        "openapi": "3.1.0",
        "info": {"title": "groundkit", "version": __version__},
        "paths": paths,
        "components": {"schemas": schemas},
    }
    if registry.settings.token is not None:
        document["components"]["securitySchemes"] = {"bearer": {"type": "http", "scheme": "bearer"}}
        document["security"] = [{"bearer": []}]
    return document


def _declare_top_k_cap(node: Any, cap: int) -> None:
    """Every ``top_k`` in the document declares this server's cap (``--max-top-k``), not the
    models' own ceiling, so a request the document allows is one the server answers."""
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "top_k" and isinstance(value, dict) and "maximum" in value:
                value["maximum"] = cap
            elif key == "name" and value == "top_k" and "maximum" in node.get("schema", {}):
                node["schema"] = {**node["schema"], "maximum": cap}
            else:
                _declare_top_k_cap(value, cap)
    elif isinstance(node, list):
        for item in node:
            _declare_top_k_cap(item, cap)


def _probe(name: str, summary: str, error: dict[str, Any]) -> dict[str, Any]:
    ok = {"description": "OK", "content": {"application/json": {"schema": {"type": "object"}}}}
    failures = {str(s): {"description": d, **error} for s, d in _ERRORS.items()}
    return {"operationId": name, "summary": summary, "responses": {"200": ok, **failures}}


_ERRORS = {
    400: "a JSON body naming a key twice, or a collection that cannot serve the request "
    "(the library's message says why)",
    401: "a bearer token is required",
    403: "the Origin is not allowed, or a browser sent it from another site or origin",
    404: "no such collection or chunk",
    405: "the method is not allowed on this path",
    411: "a chunked body without a Content-Length",
    413: "the body is over the size limit",
    415: "the body is not application/json",
    421: "the Host is not one this server answers for",
    422: "the request does not match its schema (or names a parameter it does not declare), "
    "or the library refused it as given (an over-long word for fuzzy search, say)",
    429: "as many whole-collection verifies run as --max-verifies allows (see Retry-After)",
    500: "the server failed (a bug: reported in the JSON shape, counted in status)",
    503: "the collection cannot be read (missing file, corrupt), is still being warmed, or "
    "the server is stopping",
    504: "the request ran past the server's time limit",
}
