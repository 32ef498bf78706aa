"""The REST envelope of an error: the one body (errors.error_body) as a Starlette response with the HTTP status of
its code (frontends/_errors.py) and Retry-After when the error says when to come back. Plain-ASGI answers use
frontends/_asgi.py's send_error, the same envelope without the framework."""

from __future__ import annotations

from starlette.responses import JSONResponse

from webreach.errors import WebreachError, error_body
from webreach.frontends._errors import http_status, retry_after_header


def error_response(error: WebreachError, *, tool: str | None = None) -> JSONResponse:
    """The error's body in the REST envelope; `tool` only when a tool was called."""
    wait = retry_after_header(error.retry_after)
    headers = {"Retry-After": wait} if wait is not None else None
    return JSONResponse(error_body(error, tool=tool), status_code=http_status(error.code), headers=headers)
