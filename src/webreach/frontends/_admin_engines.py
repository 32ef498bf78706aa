"""Admin endpoints for engine state, mounted behind the admin gate (frontends/_admin.py):

    GET  /v1/admin/engines                every engine's state: {"status": "ok", "engines": [...]}
    POST /v1/admin/engines/{name}/reset   close one engine's circuit breaker ("all": every engine's)
    POST /v1/admin/engines/{name}/test    "Test connection": ask a web or image engine for real, past cache and
                                          breaker (Engines.probe, what the console's button runs): {"status", "probe"}

Engines are web search's, image search's (`vertical` "images") and reverse image search's backends ("reverse").

An engine's state is the EngineStatus of `webreach engines --json` (search/service.py): breaker (closed, open,
half_open), retry_after, failures, suspended_until (epoch seconds), last_error (the code that opened it), plus
kind, key and usability; clients read fields by name, so engines may gain fields. The reset goes through the
state file like `webreach engines --reset`, so other processes sharing it see it too. Unknown names answer
400 invalid_input listing the engines.
"""

from __future__ import annotations

from collections.abc import Callable

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from webreach.errors import UnknownEngineError
from webreach.frontends._admin import AdminRoutes
from webreach.frontends._rest_errors import error_response
from webreach.gateway import Gateway

ALL = "all"


def mount_engine_admin(admin: AdminRoutes, gateway: Callable[[], Gateway]) -> None:
    """Add the engine endpoints to `admin`; `gateway` returns the served gateway (once the server runs)."""

    async def engines(request: Request) -> Response:
        return JSONResponse(_states(gateway()))

    async def reset(request: Request) -> Response:
        served = gateway()
        name = str(request.path_params["name"])
        valid = served.engines.breaker_names()
        if name != ALL and name not in valid:
            refusal = UnknownEngineError([name], valid, also=f", or {ALL}")
            return error_response(refusal)
        names = valid if name == ALL else [name]
        for each in names:
            served.engines.reset(each)
        return JSONResponse({**_states(served), "reset": names})

    async def test(request: Request) -> Response:
        served = gateway()
        name = str(request.path_params["name"])
        testable = served.engine_names() + served.engines.image_names()  # web and image engines alike
        if name not in testable:
            return error_response(UnknownEngineError([name], testable))
        probe = await served.engines.probe(name)  # changes no breaker and spends no agent's credits
        return JSONResponse({"status": "ok", "probe": probe.model_dump()})

    admin.add("/engines", engines, methods=["GET"], summary="Every engine's state: breaker, failures, suspension.")
    admin.add(
        "/engines/{name}/test",
        test,
        methods=["POST"],
        summary="Test connection: ask the engine for real (past its cache and breaker); what the console shows.",
    )
    admin.add(
        "/engines/{name}/reset",
        reset,
        methods=["POST"],
        summary=f"Close one engine's circuit breaker ({ALL!r}: every engine's); other processes see it too.",
    )


def _states(gateway: Gateway) -> dict[str, object]:
    return {"status": "ok", "engines": [status.model_dump() for status in gateway.engines.statuses()]}
