"""The agents admin API under /v1/admin/agents (behind the admin gate): the REST twin of `webreach agents`.

    GET  /v1/admin/agents                     every agent: balance, quotas, disabled
    POST /v1/admin/agents                     {"name", "credits"?, "per_hour"?, "per_day"?, "key_days"?} -> the agent
                                              and its key (key_days: the key is refused that many days from now)
    GET  /v1/admin/agents/{name}              balance, quota use, recent calls
    POST /v1/admin/agents/{name}/grant        {"credits": N, "note"?}
    POST /v1/admin/agents/{name}/rotate-key   {"key_days"?} -> the new key (the old one stops working at once)
    POST /v1/admin/agents/{name}/delete       -> {"deleted", "balance"}: the agent, its journal moved to the archive
                                              (refused while a call of it holds credits: disable it first)
    POST /v1/admin/agents/{name}/disable      {"disabled": true|false}
    POST /v1/admin/agents/{name}/settings     {"per_hour"?, "per_day"?, "prices"?, "profile"?}
    GET  /v1/admin/agents/{name}/ledger?limit=N   the journal, newest first
    GET  /v1/admin/agents/{name}/archive?limit=N  the journals of deleted agents of that name, newest delete first
    GET  /v1/admin/audit?limit=N&agent=NAME   admin changes to agents (accounts/audit.py), newest first

A key appears in exactly two answers (creation and rotation), never in a listing, a log or an error.
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

Handler = Callable[[Request], Any]
ACTOR = "admin-api"  # who the audit log says made the change


def add_agent_routes(admin: AdminRoutes, gateway: Callable[[], Gateway]) -> None:
    """Mount the agents API on `admin` (the gateway is the served one, looked up per request)."""
    api = _AgentsApi(gateway)
    admin.add("/agents", api.agents, methods=["GET", "POST"], summary="List agents (GET) or add one (POST)")
    admin.add("/agents/{name}", api.show, methods=["GET"], summary="One agent: balance, quota use, recent calls")
    admin.add("/agents/{name}/grant", api.grant, methods=["POST"], summary="Grant credits: {credits, note?}")
    admin.add("/agents/{name}/rotate-key", api.rotate, methods=["POST"], summary="A new key; the old one stops")
    admin.add("/agents/{name}/delete", api.delete, methods=["POST"], summary="Delete an agent (its journal archived)")
    admin.add("/agents/{name}/disable", api.disable, methods=["POST"], summary="Disable or enable: {disabled}")
    admin.add("/agents/{name}/settings", api.settings, methods=["POST"], summary="Quotas, prices, tool profile")
    admin.add("/agents/{name}/ledger", api.ledger, methods=["GET"], summary="The agent's journal, newest first")
    admin.add("/agents/{name}/archive", api.archive, methods=["GET"], summary="Deleted agents' journals of a name")
    admin.add("/audit", api.audit, methods=["GET"], summary="Admin changes to agents, newest first (?limit, ?agent)")


class _AgentsApi:
    def __init__(self, gateway: Callable[[], Gateway]) -> None:
        self.gateway = gateway

    async def _answer(self, work: Callable[[], Any]) -> Response:
        """`work`'s answer, run on the ledger's worker thread (never the event loop), or its typed error."""
        try:
            return JSONResponse(await self.gateway().accounts.off_loop(work))
        except WebreachError as error:
            return _error(error)

    async def agents(self, request: Request) -> Response:
        accounts = self.gateway().accounts
        if request.method == "GET":
            return await self._answer(lambda: {"agents": [a.to_json() for a in accounts.agents()]})
        body = await _body(request)
        if isinstance(body, Response):
            return body

        def add() -> dict[str, Any]:
            agent, key = accounts.add(
                _text(body, "name"),
                credits=_count(body, "credits"),
                per_hour=_count(body, "per_hour"),
                per_day=_count(body, "per_day"),
                key_days=_count(body, "key_days"),
                actor=ACTOR,
            )
            return {"agent": agent.to_json(), "key": key}

        return await self._answer(add)

    async def show(self, request: Request) -> Response:
        return await self._answer(lambda: self.gateway().accounts.show(request.path_params["name"]))

    async def grant(self, request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, Response):
            return body
        credits = _count(body, "credits", negative=True)
        if credits is None:
            return _error(InvalidInputError("give credits", hint='Send {"credits": 100}.'))
        name, note = request.path_params["name"], str(body.get("note", ""))[:200]
        return await self._answer(
            lambda: self.gateway().accounts.grant(name, credits, note=note, actor=ACTOR).to_json()
        )

    async def rotate(self, request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, Response):
            return body
        name, accounts = request.path_params["name"], self.gateway().accounts
        return await self._answer(
            lambda: {"key": accounts.rotate_key(name, key_days=_count(body, "key_days"), actor=ACTOR)}
        )

    async def delete(self, request: Request) -> Response:
        name, accounts = request.path_params["name"], self.gateway().accounts
        return await self._answer(lambda: {"deleted": name, "balance": accounts.delete(name, actor=ACTOR)})

    async def disable(self, request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, Response):
            return body
        disabled = body.get("disabled", True) is not False
        name = request.path_params["name"]
        return await self._answer(lambda: self.gateway().accounts.set_disabled(name, disabled, actor=ACTOR).to_json())

    async def settings(self, request: Request) -> Response:
        body = await _body(request)
        if isinstance(body, Response):
            return body
        name, accounts = request.path_params["name"], self.gateway().accounts

        def update() -> dict[str, Any]:  # the one merge rule: Accounts.update_agent
            limits: dict[str, int | None] = {key: _count(body, key) for key in ("per_hour", "per_day") if key in body}
            prices, profile = body.get("prices"), body.get("profile")
            return accounts.update_agent(name, limits=limits, prices=prices, profile=profile, actor=ACTOR).to_json()

        return await self._answer(update)

    async def ledger(self, request: Request) -> Response:
        raw = request.query_params.get("limit", "100")
        limit = int(raw) if raw.isdigit() else 100
        name = request.path_params["name"]
        accounts = self.gateway().accounts
        return await self._answer(lambda: {"journal": accounts.journal(name, limit=min(limit, 10_000))})

    async def archive(self, request: Request) -> Response:
        raw = request.query_params.get("limit", "1000")
        limit = min(int(raw), 10_000) if raw.isdigit() else 1000
        name = request.path_params["name"]
        accounts = self.gateway().accounts
        return await self._answer(lambda: {"archive": accounts.archived_journal(name, limit=limit)})

    async def audit(self, request: Request) -> Response:
        raw = request.query_params.get("limit", "100")
        limit = min(int(raw), 10_000) if raw.isdigit() else 100
        agent = request.query_params.get("agent")
        accounts = self.gateway().accounts
        return await self._answer(lambda: {"audit": accounts.audit(limit=limit, name=agent)})


async def _body(request: Request) -> dict[str, Any] | Response:
    raw = await request.body()
    try:
        body = json.loads(raw) if raw.strip() else {}
    except ValueError:
        return _error(InvalidInputError("the body is not valid JSON", hint="Send a JSON object."))
    if not isinstance(body, dict):
        return _error(InvalidInputError("the body must be a JSON object", hint="Send a JSON object."))
    return body


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str):
        raise InvalidInputError(f"{key} must be a string", hint=f'Send {{"{key}": "..."}}.')
    return value


def _count(body: dict[str, Any], key: str, *, negative: bool = False) -> int | None:
    value = body.get(key)
    if value is None:
        return None
    if not isinstance(value, int) or isinstance(value, bool) or (value < 0 and not negative) or abs(value) > 10**12:
        raise InvalidInputError(f"{key} must be a whole number{'' if negative else ' >= 0'}", hint="e.g. 100.")
    return value


def _error(error: WebreachError) -> Response:
    return error_response(error)
