"""POST /v1/<tool>, the REST API's hot path: a plain ASGI app, and the middleware sending tool calls straight to it."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from starlette.routing import BaseRoute, Route
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from webreach.errors import WebreachError
from webreach.frontends._agent_auth import IDEMPOTENCY_HEADER, caller_of, refuse
from webreach.frontends._asgi import CLIENT_GONE, SESSION_HEADER, header_text, read_body, refusal, send_error
from webreach.frontends._body_limits import BodyLimits
from webreach.frontends._errors import http_status, retry_after_header
from webreach.frontends._http_served import Served
from webreach.frontends._rest_errors import error_response
from webreach.tools import CallContext
from webreach.tools.backend import ToolResult

_SESSION_HEADER_KEY = SESSION_HEADER.lower().encode()


class ToolCallShortcut:
    """ASGI middleware sending POST /v1/<tool> straight to the tool-call app, past Starlette's exception
    middleware and router; every other request goes on to them.

    Measured (bench/serve.py's REST cached search with the SQLite state file, the ASGI app called in process under
    callgrind): 555k instructions a call through the router, 519k with the shortcut (-6.5%): the router's path
    matching and the exception middleware's wrapping. Nothing is lost by the shortcut:
    the tool-call app raises no HTTPException, and an unexpected exception still reaches the outermost
    ServerErrorMiddleware and its handler.
    """

    def __init__(self, app: ASGIApp, *, served: Served, tool_calls: ToolCalls) -> None:
        self.app = app
        self.served = served
        self.tool_calls = tool_calls

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http" and scope["method"] == "POST":
            tool = self.served.tools.get(scope["path"])
            if tool is not None:  # a tool, with the method it takes: called at once (no 404 or 405 to answer)
                return await self.tool_calls.call(tool, scope, receive, send)
        await self.app(scope, receive, send)


class ToolCalls:
    """POST /v1/<tool> as a plain ASGI app: the body is the tool's arguments, the answer its JSON output or error.

    The REST API's hot path, so it reads the body and writes the answer itself instead of building Starlette's
    Request and Response objects around every call. Its coroutines are few: the shortcut calls `call` directly, and
    the answer's messages are built by a plain function (with the eighth pass's other cuts, REST server CPU per
    cached search 1.50x -> 1.39x the bare endpoint's on a shared machine, 1.64x -> 1.50x on a quiet one,
    bench/serve.py: docs/decisions.md).
    """

    def __init__(self, served: Served, limits: Callable[[], BodyLimits]) -> None:
        self.served = served
        self.limits = limits
        # the other /v1/ routes (GET /v1/tools, POST /v1/images) and their methods: a wrong method there is 405
        self.beside: dict[str, str] = {}

    def next_to(self, routes: Sequence[BaseRoute]) -> None:
        """Learn the other fixed /v1/ routes, whose wrong methods this catch-all route receives."""
        for route in routes:
            if isinstance(route, Route) and route.path.startswith("/v1/") and "{" not in route.path and route.methods:
                self.beside[route.path] = ", ".join(sorted(route.methods))

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        # the raw path matches exactly when request.url.path would (tool paths hold no characters it escapes)
        path, method = scope["path"], scope["method"]
        tool = self.served.tools.get(path)
        allow = "POST" if tool is not None else self.beside.get(path)
        if allow is None:  # 404 whatever the method: no endpoint has this path
            hint = f"Endpoints: {', '.join(sorted(self.served.tools))}; see /docs."
            return await send_error(send, refusal("not_found", f"no endpoint {path}", hint=hint))
        if tool is None or method != "POST":  # a tool is called with POST
            message = f"{method} {path}: this endpoint takes {allow}"
            response = error_response(refusal("method_not_allowed", message, hint="See /docs for the endpoints."))
            response.headers["Allow"] = allow  # HTTP requires a 405 to name the methods it takes
            return await response(scope, receive, send)
        return await self.call(tool, scope, receive, send)

    async def call(self, tool: str, scope: Scope, receive: Receive, send: Send) -> None:
        """Call `tool` with the request's body as its arguments, once the caller and the body's size pass."""
        declared, session, idempotency_key = _call_headers(scope["headers"])
        try:
            caller = await caller_of(self.served.ready(), scope["headers"])
        except WebreachError as error:  # no valid key, or the ledger cannot be read now
            return await refuse(error, scope, receive, send)
        limits = self.limits()
        images = tool in self.served.carrying
        cap = limits.images if images else limits.plain
        too_large = not declared.isdigit() or int(declared) > cap
        # refused before reading, so a client waiting on "Expect: 100-continue" is not asked to send it
        body = None if too_large else await read_body(receive, cap)
        if body is CLIENT_GONE:
            return None
        if body is None:
            message, hint = limits.refusal(images=images)
            return await send_error(send, refusal("request_too_large", message, hint=hint), tool=tool)
        context = CallContext(
            tool=tool,
            arguments=body.decode("utf-8", errors="replace"),
            session=header_text(session) if session is not None else None,
            output="json",
            caller=caller,
            idempotency_key=idempotency_key,
        )
        start, answer = _answer(await self.served.ready_tools().run(context))
        await send(start)
        await send(answer)


def _call_headers(headers: Sequence[tuple[bytes, bytes]]) -> tuple[bytes, bytes | None, str | None]:
    """The declared Content-Length (b"0" when absent), the session header and the idempotency key of a tool call."""
    declared, session, idempotency_key = b"0", None, None
    for name, value in headers:
        if name == b"content-length":
            declared = value
        elif name == _SESSION_HEADER_KEY and session is None:  # the first one counts, as in Starlette
            session = value
        elif name == IDEMPOTENCY_HEADER and idempotency_key is None:
            idempotency_key = value.decode("latin-1")
    return declared, session, idempotency_key


def _answer(result: ToolResult) -> tuple[Message, Message]:
    """The tool's answer as its two ASGI messages, with the HTTP status of its error's code and Retry-After when the
    error says when (built here, sent by the caller: no coroutine of its own)."""
    content = result.text.encode()
    # a drop-in profile's text answer (browse_url, credits-server's web_fetch) is text, not JSON
    kind = b"application/json" if result.is_json else b"text/plain; charset=utf-8"
    headers = [(b"content-type", kind), (b"content-length", str(len(content)).encode())]
    status = 200
    if result.error is not None:
        status = http_status(result.error.code)
        retry_after = retry_after_header(result.error.retry_after)
        if retry_after is not None:
            headers.append((b"retry-after", retry_after.encode()))
    start = {"type": "http.response.start", "status": status, "headers": headers}
    return start, {"type": "http.response.body", "body": content}
