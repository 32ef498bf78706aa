"""The HTTP server: MCP over streamable HTTP at /mcp and a REST API beside it, on one Starlette app.

Starlette and uvicorn are imported only by this door: the frontends/_*.py parts this module gathers. Its parts:
the app (_http_app.py build_app), what its lifespan opens (_http_served.py), the tool calls (_http_tool_calls.py),
the small REST routes (_http_rest.py) and the runner (_http_run.py run_http). Routes:

    POST /mcp                        MCP streamable HTTP (frontends/mcp.py); also at / for clients given the bare
                                     server URL (frontends/_root.py; a plain GET / goes to /docs)
    POST /mcp/<profile>              MCP serving a drop-in profile's tools (tools/drop_in.py), or the paths
                                     [tools] mcp_paths maps to profiles (frontends/_mcp_paths.py)
    POST /v1/search, /v1/search_multi, /v1/fetch
                                     one per exposed tool: the JSON body is the tool's arguments, the answer its
                                     JSON output (Toolbox.call(..., output="json")); session from the
                                     X-Webreach-Session header, else the caller's or the default
                                     (tools/call_session.py)
    GET  /v1/tools?dialect=openai    the tool schemas (mcp, openai, openai-responses, anthropic)
    GET  /healthz                    {"status": "ok"}
    GET  /metrics                    Prometheus text format, behind the admin gate (frontends/_metrics.py)
    GET  /readyz                     the configured backends answer: 200, else 503 naming which (_readiness.py)
    GET  /v1/admin[/...]             admin endpoints behind the admin gate (frontends/_admin.py): engine
                                     states and breaker resets (frontends/_admin_engines.py)
    GET  /openapi.json, /docs        generated from the tools' schemas (frontends/_openapi.py)
    /console[/...]                   the operator console, HTML (frontends/_console.py, _console_pages.py)

Errors are the agent error body with the HTTP status of its code (frontends/_errors.py), plus Retry-After when
the error says when to come back; the server's own refusals (unknown path, bad Host) use the same shape, and so
do uvicorn's: a request its parser refuses (a control character in a header value, a broken request line) gets
400 invalid_input from the protocol subclass frontends/_listening.py gives uvicorn, not its plain text.

Bodies: [server] max_body_bytes, and for tool calls carrying images a cap fitting [images] max_input_bytes
(frontends/_body_limits.py): over it, 413 request_too_large naming the cap and POST /v1/images. The session header
is UTF-8 (invalid bytes are refused by the session check), so `--session 研究` and the header name one session.

DNS rebinding: every request must carry an allowed Host and Origin (frontends/_host_guard.py). MCP additionally
gets the SDK's own check.
"""

from __future__ import annotations

from webreach.frontends._http_app import build_app
from webreach.frontends._http_run import ready_hook, run_http
from webreach.frontends._http_served import GatewayOpener, ProfileDoor, served_tools

__all__ = ["GatewayOpener", "ProfileDoor", "build_app", "ready_hook", "run_http", "served_tools"]
