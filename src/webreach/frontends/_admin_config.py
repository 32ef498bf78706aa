"""The console's settings over the admin API (behind the admin gate), the REST twin of the console's forms:

    GET  /v1/admin/config    every engine's fields and the auto orders: per field each source's value, the winner
                             and its environment variable; secrets only as "set (hidden)" / "not set"
    POST /v1/admin/config    {"engines": {"brave_api": {"api_key": "...", "rate_per_minute": 30, "base_url": null}},
                              "auto_order": ["mojeek", ...], "auto_order_zh": null,
                              "cache": {"ttl_seconds": 900, "max_entries": 100},
                              "network": {"proxy": "http://user:password@proxy.example:3128"}}
                             a value sets the console's value, null removes it (the file's or the default applies);
                             answers with the new view. Secrets are write-only: no answer ever holds one (a proxy is
                             shown as scheme://***@host:port).

Changes apply at once on this server and within a second on every server sharing the database.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from webreach.errors import InvalidInputError, WebreachError
from webreach.frontends._admin import AdminRoutes
from webreach.frontends._rest_errors import error_response
from webreach.gateway import Gateway


def add_config_routes(admin: AdminRoutes, gateway: Callable[[], Gateway]) -> None:
    """Mount GET and POST /v1/admin/config on `admin`."""

    async def config(request: Request) -> Response:
        served = gateway()
        if request.method == "POST":
            try:
                served.config.change(await _changes(request, served), actor="admin-api")
            except WebreachError as error:
                return error_response(error)
        return JSONResponse(config_json(served))

    admin.add(
        "/config",
        config,
        methods=["GET", "POST"],
        summary="The console's settings per field with their sources (GET); set or remove them (POST; null removes).",
    )


def config_json(gateway: Gateway) -> dict[str, Any]:
    """Every configurable field with its sources; never a secret's value."""
    stored = gateway.config.stored
    engines = {name: _fields(stored.engine_view(name)) for name in gateway.engine_names()}
    return {
        "status": "ok",
        "version": stored.version,
        "problem": stored.problem,
        "secret_key": stored.key_source,
        "engines": engines,
        "routing": _fields(stored.routing_view()),
        "cache": _fields(stored.cache_view()),
        "network": _fields(stored.network_view()),
    }


def _fields(views: list[Any]) -> dict[str, Any]:
    return {
        view.field: {
            "winner": view.winner,
            "variable": view.variable,
            "secret": view.secret,
            "layers": [{"source": layer.source, "value": layer.shown} for layer in view.layers],
        }
        for view in views
    }


async def _changes(request: Request, gateway: Gateway) -> dict[tuple[str, str], Any]:
    try:
        body = json.loads(await request.body() or b"{}")
    except ValueError:
        raise InvalidInputError("the body is not valid JSON", hint="Send a JSON object.") from None
    stored = gateway.config.stored
    engine_fields, routing_fields = stored.engine_fields, stored.routing_fields
    if not isinstance(body, dict) or set(body) - {"engines", "cache", "network", *routing_fields}:
        raise InvalidInputError(f"the body must be an object of engines, cache, network, {', '.join(routing_fields)}")
    changes: dict[tuple[str, str], Any] = {("routing", f): body[f] for f in routing_fields if f in body}
    cache = body.get("cache", {})
    if not isinstance(cache, dict) or set(cache) - set(stored.cache_fields):
        raise InvalidInputError(f"cache must be an object of {', '.join(stored.cache_fields)}")
    changes.update({("cache", field): value for field, value in cache.items()})
    network = body.get("network", {})
    if not isinstance(network, dict) or set(network) - set(stored.network_fields):
        raise InvalidInputError(f"network must be an object of {', '.join(stored.network_fields)}")
    changes.update({("network", field): value for field, value in network.items()})
    engines = body.get("engines", {})
    if not isinstance(engines, dict) or not all(isinstance(v, dict) for v in engines.values()):
        raise InvalidInputError('engines must map engine names to objects of fields, e.g. {"mojeek": {"timeout": 10}}')
    for name, fields in engines.items():
        unknown = set(fields) - set(engine_fields)
        if unknown:
            raise InvalidInputError(
                f"unknown fields: {', '.join(sorted(unknown))}", hint=f"Use {', '.join(engine_fields)}."
            )
        changes.update({(f"engine:{name}", field): value for field, value in fields.items()})
    return changes
