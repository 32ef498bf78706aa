"""Plain-ASGI pieces of the HTTP server that need no web framework: the HTTP envelope of an error (status and
headers around errors.error_body's body), the server's own refusals, the capped body reader and the answer to a
request uvicorn cannot parse.

Limits (one table, enforced before anything decodes a request):
- body: [server] max_body_bytes (1 MB by default), REST and MCP alike, and a cap fitting [images] max_input_bytes
  for tool calls that carry images (frontends/_body_limits.py); over it, 413 request_too_large naming the cap and
  the upload route, refused before reading when Content-Length says so;
- JSON nesting: defaults.py MAX_JSON_DEPTH, checked by the tools pipeline on every door;
- the session header: 1-200 characters without control characters (state/sessions.py SESSION_PATTERN), sent as
  UTF-8 or, when the bytes are not UTF-8, read as Latin-1.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from webreach.errors import RequestRefused, WebreachError, error_body
from webreach.frontends._errors import http_status, retry_after_header

# ASGI, spelled out so this module needs no web framework import
Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
ASGIApp = Callable[[Scope, Receive, Send], Awaitable[None]]

CLIENT_GONE = b"client gone"  # compared by identity: read_body's answer when the client disconnected


def refusal(code: str, message: str, *, hint: str = "", retry_after: float | None = None) -> RequestRefused:
    """A refusal of the server's own (no error class of the core says it: an unknown path, a body over the cap)."""
    return RequestRefused(code, message, hint=hint, retry_after=retry_after)


def error_headers(error: WebreachError, content: bytes) -> list[tuple[bytes, bytes]]:
    """The HTTP envelope's headers of an error answer: JSON, its length, and Retry-After when it says when."""
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())]
    wait = retry_after_header(error.retry_after)
    if wait is not None:
        headers.append((b"retry-after", wait.encode()))
    return headers


def body_bytes(body: dict[str, Any]) -> bytes:
    """An error body as JSON, spelled as Starlette's JSONResponse spells the server's other answers."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()


async def send_error(send: Send, error: WebreachError, *, tool: str | None = None) -> None:
    """Answer with the error body (errors.error_body) in the HTTP envelope: the status of its code, its headers."""
    content = body_bytes(error_body(error, tool=tool))
    await send(
        {"type": "http.response.start", "status": http_status(error.code), "headers": error_headers(error, content)}
    )
    await send({"type": "http.response.body", "body": content})


# the header naming a call's session (REST, MCP over HTTP, image uploads): the one spelling every door reads and the
# OpenAPI document shows; header names are case-insensitive, and ASGI servers deliver them in lower case
SESSION_HEADER = "X-Webreach-Session"


def header_text(value: bytes) -> str:
    """A header value as text: UTF-8, or Latin-1 when the bytes are not UTF-8 (what HTTP historically meant), so
    any name the OpenAPI document allows arrives as itself whichever a client sends; control characters, C1 ones
    included, are then refused by the session check."""
    try:
        return value.decode("utf-8")
    except UnicodeDecodeError:
        return value.decode("latin-1")


def malformed_request_response() -> bytes:
    """The whole HTTP response to a request the server's parser refused: 400 invalid_input, connection closed."""
    hint = "Check the request line and headers: no control characters in header values, one Content-Length"
    content = body_bytes(error_body(refusal("invalid_input", "malformed HTTP request", hint=hint)))
    head = (
        b"HTTP/1.1 400 Bad Request\r\ncontent-type: application/json\r\n"
        b"content-length: " + str(len(content)).encode() + b"\r\nconnection: close\r\n\r\n"
    )
    return head + content


async def read_body(receive: Receive, limit: int) -> bytes | None:
    """The whole request body; None once it grows past `limit` bytes; CLIENT_GONE when the client went away."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return CLIENT_GONE
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)
