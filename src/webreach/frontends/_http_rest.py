"""The HTTP server's small REST routes (tools, health, docs, images) and its answers to Starlette's own errors."""

from __future__ import annotations

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import Route

from webreach.errors import WebreachError
from webreach.frontends._agent_auth import caller_of
from webreach.frontends._asgi import refusal
from webreach.frontends._http_served import Served
from webreach.frontends._image_routes import public_image
from webreach.frontends._image_routes import upload as image_upload_route
from webreach.frontends._openapi import docs_html
from webreach.frontends._rest_errors import error_response
from webreach.tools import DIALECTS


class Rest:
    """The REST endpoints over the served gateway."""

    def __init__(self, served: Served) -> None:
        self.served = served

    async def tools(self, request: Request) -> Response:
        """GET /v1/tools?dialect=...: the tool schemas in an agent framework's dialect."""
        asked = request.query_params.get("dialect", "openai")
        dialect = next((known for known in DIALECTS if known == asked), None)
        if dialect is None:
            hint = f"Use one of {', '.join(DIALECTS)}."
            return error_response(refusal("invalid_input", f"unknown dialect {asked!r}", hint=hint))
        try:
            caller = await caller_of(self.served.ready(), request.headers.raw)
        except WebreachError as error:  # no valid key, or the ledger cannot be read now
            return error_response(error)
        tools = self.served.ready_tools()
        return JSONResponse(await tools.caller_schemas(dialect, caller))

    async def healthz(self, request: Request) -> Response:
        return JSONResponse({"status": "ok"})

    async def openapi(self, request: Request) -> Response:
        return JSONResponse(self.served.openapi)

    async def docs(self, request: Request) -> Response:
        base_url = str(request.base_url).rstrip("/")
        return HTMLResponse(docs_html(self.served.openapi, base_url=base_url))


def image_routes(served: Served) -> list[Route]:
    """POST /v1/images (a multipart upload) and GET /i/<id> (public_url links): frontends/_image_routes.py."""

    async def upload(request: Request) -> Response:
        return await image_upload_route(served.ready(), served.ready_tools(), request)

    async def public(request: Request) -> Response:
        return await public_image(served.ready(), str(request.path_params["link_id"]))

    return [Route("/v1/images", upload, methods=["POST"]), Route("/i/{link_id}", public, methods=["GET"])]


async def to_docs(request: Request) -> Response:
    """GET /: the server's front door sends a person (or a client) to the API documentation."""
    return RedirectResponse("/docs", status_code=307)


async def bare(request: Request) -> Response:
    return JSONResponse({"status": "ok"})


async def http_exception(request: Request, exc: Exception) -> Response:
    """Starlette's own 404/405 answers, in the agent error shape."""
    status = exc.status_code if isinstance(exc, HTTPException) else 500
    code = {404: "not_found", 405: "method_not_allowed"}.get(status, "invalid_input")
    hint = "See /docs for the endpoints." if status in (404, 405) else ""
    message = f"{request.method} {request.url.path}: {exc.detail if isinstance(exc, HTTPException) else exc}"
    response = error_response(refusal(code, message, hint=hint))
    if isinstance(exc, HTTPException) and exc.headers:  # a 405 names the methods allowed (Allow), as HTTP requires
        response.headers.update(exc.headers)
    return response


async def internal_error(request: Request, exc: Exception) -> Response:
    return error_response(
        refusal("error", "internal server error", hint="This is a bug; the server log has the details.")
    )
