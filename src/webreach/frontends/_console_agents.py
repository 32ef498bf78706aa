"""The console's agents pages (access and CSRF in frontends/_console.py):

    GET  /console/agents, POST /console/agents   list, create (the key is shown in that one answer only), recent calls
    GET  /console/agents/{name}                  balance, quota use, recent calls and the ledger
    POST /console/agents/{name}/grant            grant (or take back) credits
    POST /console/agents/{name}/settings         quotas (per hour, per day) and the tool profile

Recent calls are this server's (accounts/recent_calls.py: who, tool, engines tried, status, latency, credits);
the ledger below them is every server's.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from webreach.errors import InvalidInputError, WebreachError
from webreach.frontends._console import ConsoleSession, Form, Renderer, form_of
from webreach.gateway import Gateway
from webreach.tools import TOOL_NAMES

LEDGER_ROWS = 50
RECENT_ROWS = 50
PROFILE_SIZES = ("default_results", "max_results", "default_chars", "max_chars")


class AgentPages:
    def __init__(self, gateway: Callable[[], Gateway], renderer: Renderer) -> None:
        self.gateway = gateway
        self.renderer = renderer

    async def agents(self, request: Request, session: ConsoleSession) -> Response:
        accounts = self.gateway().accounts
        created: dict[str, Any] | None = None
        error: str | None = None
        if request.method == "POST":
            form = form_of(request)
            try:
                credits = whole(form.get("credits", "0") or "0", "credits")
                agent, key = accounts.add(form.get("name").strip(), credits=credits)
                created = {"name": agent.name, "key": key}
            except WebreachError as failure:
                error = said(failure)
        listing = [agent.to_json() for agent in accounts.ledger.agents()]
        return self.renderer.page(
            "agents.html",
            csrf=session.csrf,
            title="Agents & credits",
            agents=listing,
            created=created,
            error=error,
            metered=accounts.enabled,
            calls=[call.to_json() for call in accounts.recent.calls(limit=RECENT_ROWS)],
        )

    async def agent(self, request: Request, session: ConsoleSession, **extra: Any) -> Response:
        accounts = self.gateway().accounts
        name = str(request.path_params["name"])
        try:
            shown = accounts.show(name, recent=0)
            journal = accounts.ledger.journal(name, limit=LEDGER_ROWS)
        except WebreachError as failure:
            return self.renderer.page("refused.html", 404, reason="missing", message=said(failure))
        profile = shown["options"].get("profile", {})
        return self.renderer.page(
            "agent.html",
            csrf=session.csrf,
            title=f"Agent {name}",
            agent=shown,
            journal=journal,
            tools=list(TOOL_NAMES),
            allowed=profile.get("tools") or list(TOOL_NAMES),
            sizes={size: profile.get(size) for size in PROFILE_SIZES},
            calls=[call.to_json() for call in accounts.recent.calls(agent=name, limit=RECENT_ROWS)],
            metered=accounts.enabled,
            **extra,
        )

    async def grant(self, request: Request, session: ConsoleSession) -> Response:
        name = str(request.path_params["name"])
        form = form_of(request)
        try:
            credits = whole(form.get("credits"), "credits", negative=True)
            self.gateway().accounts.grant(name, credits, note=form.get("note")[:200])
        except WebreachError as failure:
            return await self.agent(request, session, error=said(failure))
        return await self.agent(request, session, notice=f"Granted {credits} credits.")

    async def settings(self, request: Request, session: ConsoleSession) -> Response:
        """Quotas and the tool profile: a blank quota is unlimited, every tool ticked is "all tools"."""
        name = str(request.path_params["name"])
        form = form_of(request)
        accounts = self.gateway().accounts
        try:
            limits = {key: optional_whole(form.get(key), key) for key in ("per_hour", "per_day")}
            profile = profile_of(form)
            agent = accounts.set_limits(name, **limits)
            options = {**agent.options, "profile": profile}
            if not profile:
                options.pop("profile")
            accounts.set_options(name, options)
        except WebreachError as failure:
            return await self.agent(request, session, error=said(failure))
        return await self.agent(request, session, notice="Quotas and tool profile saved.")


def profile_of(form: Form) -> dict[str, Any]:
    """The tool profile a settings form describes (fields left blank are left out)."""
    chosen = [tool for tool in TOOL_NAMES if form.get(f"tool_{tool}") == "on"]
    profile: dict[str, Any] = {}
    if len(chosen) < len(TOOL_NAMES):
        profile["tools"] = chosen
    for size in PROFILE_SIZES:
        value = optional_whole(form.get(size), size)
        if value is not None:
            if value < 1:
                raise InvalidInputError(f"{size} must be at least 1", hint="Leave it blank for no limit.")
            profile[size] = value
    return profile


def whole(raw: str, field: str, *, negative: bool = False) -> int:
    text = raw.strip()
    digits = text[1:] if negative and text.startswith("-") else text
    if not digits.isdigit() or len(digits) > 12:
        raise InvalidInputError(f"{field} must be a whole number", hint="Enter a number such as 100.")
    return int(text)


def optional_whole(raw: str, field: str) -> int | None:
    return None if not raw.strip() else whole(raw, field)


def said(error: WebreachError) -> str:
    return f"{error.message} {error.hint}".strip() if error.hint else error.message
