"""Request body caps of the HTTP server: which cap a call gets, and the 413 that names it and the way forward.

Two caps (issue 35):
- [server] max_body_bytes (1 MB by default) for every call;
- tool calls that carry images (crop_images, reverse_image_search, image_upload and their aliases: base64 in
  `messages` or `image`) get the image cap: [images] max_input_bytes as base64 (4/3 of it) plus max_body_bytes
  for the rest of the call. With the defaults, 20,000,000 * 4/3 + 1,000,000 = 27,666,668 bytes, so a photo the
  image limit admits also fits inline.
REST knows the tool from its path, before reading. MCP names the tool inside the JSON-RPC body, so a body over the
ordinary cap (never one over the image cap) is read and parsed on a worker thread, and kept only when it is one
tools/call of an image tool. Every 413 (request_too_large) names the cap it hit and the upload route: POST
/v1/images (multipart) answers a token, and the call passes the token instead of the bytes. Over MCP the 413's
body is a JSON-RPC error (what an MCP client shows its user), with the agent error fields beside it for plain
HTTP clients.
"""

from __future__ import annotations

import asyncio
import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from webreach.errors import error_body
from webreach.frontends._asgi import (
    CLIENT_GONE,
    ASGIApp,
    Message,
    Receive,
    Scope,
    Send,
    body_bytes,
    read_body,
    refusal,
)
from webreach.tools import Toolbox
from webreach.tools.image_tools import IMAGE_TOOLS

UPLOAD_HINT = (
    "Send a large image once as an upload: POST /v1/images (multipart/form-data, the image in field 'file') "
    "answers a token such as <obs_1>; then pass that token in the call instead of the image's bytes"
)
INVALID_REQUEST = -32600  # JSON-RPC


@dataclass(frozen=True)
class BodyLimits:
    """The body caps in effect: `plain` for every call, `images` for tool calls that carry images."""

    plain: int
    images: int

    @classmethod
    def of(cls, max_body_bytes: int, max_image_bytes: int) -> BodyLimits:
        return cls(max_body_bytes, max_body_bytes + 4 * math.ceil(max_image_bytes / 3))

    def refusal(self, *, images: bool) -> tuple[str, str]:
        """The 413's message and hint: the cap hit, and the upload route."""
        if images:
            message = (
                f"the request body is over the limit of {self.images:,} bytes for tool calls that carry images "
                f"(an image of up to {(self.images - self.plain) * 3 // 4:,} bytes, base64-encoded)"
            )
        else:
            message = (
                f"the request body is over the limit of {self.plain:,} bytes "
                f"({self.images:,} for tool calls that carry images)"
            )
        return message, UPLOAD_HINT


def carries_images(toolbox: Toolbox, name: str) -> bool:
    """Whether tool `name` of `toolbox` (an alias included) takes image bytes in its arguments."""
    # an agent's surface (a drop-in profile) may name a tool the toolbox's own tools do not have
    tools = [toolbox.tools.get(name), *(surface.get(name) for surface in toolbox.surfaces.values())]
    return any(tool is not None and (tool.alias_of or tool.name) in IMAGE_TOOLS for tool in tools)


def declared_length(scope: Scope) -> int | None:
    """The Content-Length a request declares; None when it declares none or nonsense."""
    declared = next((value for name, value in scope["headers"] if name == b"content-length"), b"0")
    return int(declared) if declared.isdigit() else None


class McpBodyCap:
    """ASGI wrapper giving the MCP endpoint the REST body caps: a POST body over the image cap, or over the
    ordinary cap without being one tools/call of an image tool, is refused with a JSON-RPC 413; an admitted body is
    read here and handed on whole."""

    def __init__(self, app: ASGIApp, limits: Callable[[], BodyLimits], toolbox: Callable[[], Toolbox]) -> None:
        self.app = app
        self.limits = limits
        self.toolbox = toolbox

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope["method"] != "POST":
            return await self.app(scope, receive, send)
        limits = self.limits()
        declared = declared_length(scope)
        too_large = declared is None or declared > limits.images
        body = None if too_large else await read_body(receive, limits.images)
        if body is CLIENT_GONE:
            return None
        if body is None:
            return await send_rpc_refusal(send, limits, images=declared is not None, request_id=None)
        if len(body) > limits.plain:
            request_id, tool = await asyncio.to_thread(_tool_call_of, body)  # a parse of up to ~28 MB: off the loop
            if tool is None or not carries_images(self.toolbox(), tool):
                return await send_rpc_refusal(send, limits, images=False, request_id=request_id)
        delivered = False

        async def replay() -> Message:
            nonlocal delivered
            if delivered:
                return await receive()  # what follows the body: a disconnect
            delivered = True
            return {"type": "http.request", "body": body, "more_body": False}

        await self.app(scope, replay, send)


def _tool_call_of(body: bytes) -> tuple[Any, str | None]:
    """(the JSON-RPC id, the tool name) of a body that is one tools/call request; (id or None, None) otherwise."""
    try:
        message = json.loads(body)
    except ValueError:
        return None, None
    if not isinstance(message, dict):
        return None, None
    request_id = message.get("id") if isinstance(message.get("id"), str | int) else None
    params = message.get("params")
    if message.get("method") != "tools/call" or not isinstance(params, dict) or not isinstance(params.get("name"), str):
        return request_id, None
    return request_id, params["name"]


async def send_rpc_refusal(send: Send, limits: BodyLimits, *, images: bool, request_id: Any) -> None:
    """413 whose body is a JSON-RPC error naming the cap and the upload route, the agent error fields beside it."""
    message, hint = limits.refusal(images=images)
    agent = error_body(refusal("request_too_large", message, hint=hint))
    data = {
        "code": "request_too_large",
        "limit": limits.images if images else limits.plain,
        "upload": "POST /v1/images",
    }
    rpc = {
        "jsonrpc": "2.0",
        "id": request_id,
        "error": {"code": INVALID_REQUEST, "message": agent["message"], "data": data},
    }
    content = body_bytes({**rpc, **agent})
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())]
    await send({"type": "http.response.start", "status": 413, "headers": headers})
    await send({"type": "http.response.body", "body": content})
