"""The registry as a REST API on Starlette: ``/v1/search``, ``/v1/chunks/{id}``, ``/v1/verify``,
``/v1/collections``, ``/v1/status``, and its OpenAPI document at ``/openapi.json``.

Bodies and replies are the tools' pydantic models; errors are ``{"error", "message",
"subject"}`` with the status of ``groundkit_serve.errors`` (validation: 422).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from pydantic import BaseModel, ValidationError
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, Response
from starlette.routing import Route

from groundkit import __version__
from groundkit_serve.errors import ServiceError
from groundkit_serve.models import ErrorBody, NoArguments
from groundkit_serve.spec import ToolSpec
from groundkit_serve.tools import Registry

__all__ = ["openapi", "rest_routes"]

Handler = Callable[[Request], Awaitable[Response]]
_INTEGER_FIELDS = {"top_k", "rrf_k", "depth", "rerank_depth"}
_FLOAT_FIELDS = {"score_threshold", "lexical_weight", "dense_weight", "min_similarity"}


def _error(exc: ServiceError) -> JSONResponse:
    return JSONResponse(exc.to_dict(), status_code=exc.status)


def _invalid(exc: ValidationError) -> JSONResponse:
    """422 naming each field at fault and why (never echoing the values)."""
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or 'body'}: {err['msg']}" for err in exc.errors()
    )
    return JSONResponse(
        {"error": "invalid", "message": f"invalid request: {problems}", "subject": None},
        status_code=422,
    )


def _from_query(request: Request) -> dict[str, Any]:
    """GET query parameters as request fields (``q`` is short for ``query``)."""
    values: dict[str, Any] = {}
    for key, value in request.query_params.items():
        name = "query" if key == "q" else key
        if name in _INTEGER_FIELDS and value.lstrip("-").isdigit():
            values[name] = int(value)
        elif name in _FLOAT_FIELDS:
            try:
                values[name] = float(value)
            except ValueError:
                values[name] = value
        elif name == "where":
            raise ServiceError(400, "invalid", "send a 'where' filter in a POST body (JSON)")
        elif name in {"verify", "rerank"}:
            values[name] = value.lower() in {"1", "true", "yes"}
        else:
            values[name] = value
    return values


def _endpoint(
    registry: Registry, spec: ToolSpec, fields: Callable[[Request], Awaitable[dict[str, Any]]]
) -> Handler:
    async def handle(request: Request) -> Response:
        try:
            arguments = await fields(request)
            parsed = spec.request.model_validate(arguments)
            reply = await registry.call(spec, parsed)
        except ValidationError as exc:
            return _invalid(exc)
        except ServiceError as exc:
            return _error(exc)
        return Response(reply.model_dump_json(), media_type="application/json")

    return handle


async def _query_fields(request: Request) -> dict[str, Any]:
    return _from_query(request)


async def _json_fields(request: Request) -> dict[str, Any]:
    try:
        body = await request.json()
    except ValueError:
        raise ServiceError(400, "invalid", "the request body is not JSON") from None
    if not isinstance(body, dict):
        raise ServiceError(400, "invalid", "the request body must be a JSON object")
    return body


async def _chunk_fields(request: Request) -> dict[str, Any]:
    return {**_from_query(request), "chunk_id": request.path_params["chunk_id"]}


async def _no_fields(request: Request) -> dict[str, Any]:
    return {}


def rest_routes(registry: Registry) -> list[Route]:
    """The REST routes over ``registry``'s tools."""
    tools = registry.tools
    search_get = _endpoint(registry, tools["search"], _query_fields)
    search_post = _endpoint(registry, tools["search"], _json_fields)

    async def search(request: Request) -> Response:
        return await (search_get if request.method == "GET" else search_post)(request)

    async def openapi_json(request: Request) -> Response:
        return JSONResponse(openapi(registry))

    async def docs(request: Request) -> Response:
        return HTMLResponse(_DOCS)

    sharded = []  # a sharded search held elsewhere (Ray Serve), when the registry has one
    if "search_sharded" in tools:
        post = _endpoint(registry, tools["search_sharded"], _json_fields)
        sharded = [Route("/v1/search_sharded", post, methods=["POST"])]
    return [
        *sharded,
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

    def operation(spec: ToolSpec, *, body: bool, parameters: list[Any]) -> dict[str, Any]:
        op: dict[str, Any] = {
            "operationId": spec.name,
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

    def query(name: str, required: bool = False) -> dict[str, Any]:
        return {"name": name, "in": "query", "required": required, "schema": {"type": "string"}}

    tools = registry.tools
    search_query = [query("q", True), query("collection"), query("mode"), query("top_k"),
                    query("source_prefix"), query("verify")]  # fmt: skip
    chunk_id = {"name": "chunk_id", "in": "path", "required": True, "schema": {"type": "string"}}
    paths: dict[str, Any] = {
        "/v1/search": {
            "get": operation(tools["search"], body=False, parameters=search_query),
            "post": operation(tools["search"], body=True, parameters=[]),
        },
        "/v1/chunks/{chunk_id}": {
            "get": operation(
                tools["fetch_chunk"], body=False, parameters=[chunk_id, query("collection")]
            )
        },
        "/v1/verify": {"post": operation(tools["verify"], body=True, parameters=[])},
        "/v1/collections": {"get": operation(tools["list_collections"], body=False, parameters=[])},
        "/v1/status": {"get": operation(tools["status"], body=False, parameters=[])},
    }
    if "search_sharded" in tools:
        paths["/v1/search_sharded"] = {
            "post": operation(tools["search_sharded"], body=True, parameters=[])
        }
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


_ERRORS = {
    400: "the request was refused (the library's message says why)",
    401: "a bearer token is required",
    403: "the Origin is not allowed",
    404: "no such collection or chunk",
    413: "the body is over the size limit",
    421: "the Host is not one this server answers for",
    422: "the request does not match its schema",
    503: "the collection cannot be read (missing file, corrupt)",
    504: "the request ran past the server's time limit",
}
