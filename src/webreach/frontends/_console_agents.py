"""The console's agents pages (access and CSRF in frontends/_console.py):

    GET  /console/agents, POST /console/agents   list, create (the key is shown in that one answer only), recent calls
    GET  /console/agents/{name}                  balance, quota use, recent calls and the ledger
    POST /console/agents/{name}/grant            grant (or take back) credits
    POST /console/agents/{name}/settings         quotas (per hour, per day) and the tool profile
    POST /console/agents/{name}/rotate           a new key, shown once on the agent's page (the old one stops)
    POST /console/agents/{name}/disable          disable (disabled=on) or enable the agent
    POST /console/agents/{name}/delete           delete it, its name typed again to confirm

Each POST answers 303 to the page showing its result; creating an agent, rotating its key and granting credits carry a
one-time token,
so a replayed POST does nothing (frontends/_console.py). Recent calls are this server's (accounts/recent_calls.py:
who, tool, engines tried, status, latency, credits); the ledger below them is every server's.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from webreach.defaults import TOOL_PROFILES
from webreach.errors import InvalidInputError, WebreachError
from webreach.frontends._console import CONSOLE, ConsoleAccess, ConsoleSession, Form, Renderer, form_of
from webreach.frontends._console_words import ENTRY_WORDS, said
from webreach.gateway import Gateway
from webreach.tools import TOOL_NAMES

LEDGER_ROWS = 50
RECENT_ROWS = 50
PROFILE_SIZES = ("default_results", "max_results", "default_chars", "max_chars")


REPLAYED = "This form was already sent: nothing was done again."


class AgentPages:
    def __init__(self, gateway: Callable[[], Gateway], renderer: Renderer, access: ConsoleAccess) -> None:
        self.gateway = gateway
        self.renderer = renderer
        self.access = access

    async def agents(self, request: Request, session: ConsoleSession, **shown: Any) -> Response:
        """GET: the agents (and a new one's key, once, after the POST that made it); POST: create, then 303."""
        accounts = self.gateway().accounts
        if request.method == "POST":
            return self.done(session, "/agents", **await self._create(form_of(request)))
        listing = await accounts.off_loop(lambda: [agent.to_json() for agent in accounts.agents()])
        return self.renderer.page(
            "agents.html",
            csrf=session.csrf,
            title="Agents & credits",
            agents=listing,
            created=shown.get("created"),
            error=shown.get("error"),
            notice=shown.get("notice"),
            metered=accounts.enabled,
            calls=[call.to_json() for call in accounts.recent.calls(limit=RECENT_ROWS)],
        )

    async def _create(self, form: Form) -> dict[str, Any]:
        if not self.access.first_use(form):
            return {"notice": REPLAYED}
        try:
            credits = whole(form.get("credits", "0") or "0", "credits")
            days = optional_whole(form.get("key_days"), "Key valid for (days)")
            accounts = self.gateway().accounts
            agent, key = await accounts.off_loop(
                functools.partial(
                    accounts.add, form.get("name").strip(), credits=credits, key_days=days, actor="console"
                )
            )
        except WebreachError as failure:
            return {"error": said(failure)}
        return {"created": {"name": agent.name, "key": key}}

    async def agent(self, request: Request, session: ConsoleSession, **extra: Any) -> Response:
        accounts = self.gateway().accounts
        name = str(request.path_params["name"])
        try:
            shown = await accounts.off_loop(functools.partial(accounts.show, name, recent=0))
            journal = await accounts.off_loop(functools.partial(accounts.journal, name, limit=LEDGER_ROWS))
            spend = await accounts.off_loop(accounts.spend_by_day, name)
        except WebreachError as failure:
            return self.renderer.page("refused.html", 404, reason="missing", message=said(failure))
        profile = shown["options"].get("profile", {})
        return self.renderer.page(
            "agent.html",
            csrf=session.csrf,
            title=f"Agent {name}",
            agent=shown,
            journal=journal,
            entry_words=ENTRY_WORDS,
            spend=spend,
            most_spent=max([credits for _, credits in spend] + [1]),
            tools=list(TOOL_NAMES),
            allowed=profile.get("tools") or list(TOOL_NAMES),
            sizes={size: profile.get(size) for size in PROFILE_SIZES},
            surfaces=TOOL_PROFILES,
            surface=profile.get("surface"),
            calls=[call.to_json() for call in accounts.recent.calls(agent=name, limit=RECENT_ROWS)],
            metered=accounts.enabled,
            **extra,
        )

    async def grant(self, request: Request, session: ConsoleSession) -> Response:
        """Grant (or take back) credits once per form: a replayed POST grants nothing."""
        name = str(request.path_params["name"])
        form = form_of(request)
        if not self.access.first_use(form):
            return self.done(session, f"/agents/{name}", notice=REPLAYED)
        try:
            credits = whole(form.get("credits"), "credits", negative=True)
            accounts = self.gateway().accounts
            await accounts.off_loop(
                functools.partial(accounts.grant, name, credits, note=form.get("note")[:200], actor="console")
            )
        except WebreachError as failure:
            return self.done(session, f"/agents/{name}", error=said(failure))
        return self.done(session, f"/agents/{name}", notice=f"Granted {credits} credits.")

    async def settings(self, request: Request, session: ConsoleSession) -> Response:
        """Quotas and the tool profile: a blank quota is unlimited, every tool ticked is "all tools"."""
        name = str(request.path_params["name"])
        form = form_of(request)
        accounts = self.gateway().accounts
        try:
            limits = {key: optional_whole(form.get(key), key) for key in ("per_hour", "per_day")}
            profile = profile_of(form)
            await accounts.off_loop(
                functools.partial(accounts.update_agent, name, limits=limits, profile=profile, actor="console")
            )
        except WebreachError as failure:
            return self.done(session, f"/agents/{name}", error=said(failure))
        return self.done(session, f"/agents/{name}", notice="Quotas and tool profile saved.")

    async def rotate(self, request: Request, session: ConsoleSession) -> Response:
        """A new key, shown on the agent's page this once; the old key stops at once. Once per form."""
        name = str(request.path_params["name"])
        if not self.access.first_use(form_of(request)):
            return self.done(session, f"/agents/{name}", notice=REPLAYED)
        accounts = self.gateway().accounts
        try:
            days = optional_whole(form_of(request).get("key_days"), "Key valid for (days)")
            key = await accounts.off_loop(functools.partial(accounts.rotate_key, name, key_days=days, actor="console"))
        except WebreachError as failure:
            return self.done(session, f"/agents/{name}", error=said(failure))
        notice = "New key made: the old one no longer works."
        return self.done(session, f"/agents/{name}", created={"name": name, "key": key}, notice=notice)

    async def disable(self, request: Request, session: ConsoleSession) -> Response:
        """Disable (its calls are refused) or enable the agent, as the form's `disabled` says."""
        name = str(request.path_params["name"])
        disabled = form_of(request).get("disabled") == "on"
        accounts = self.gateway().accounts
        try:
            await accounts.off_loop(functools.partial(accounts.set_disabled, name, disabled, actor="console"))
        except WebreachError as failure:
            return self.done(session, f"/agents/{name}", error=said(failure))
        notice = "Disabled: its calls are refused until you enable it." if disabled else "Enabled: its key works."
        return self.done(session, f"/agents/{name}", notice=notice)

    async def delete(self, request: Request, session: ConsoleSession) -> Response:
        """Delete the agent once its name is typed again to confirm; back to the agents list."""
        name = str(request.path_params["name"])
        if form_of(request).get("confirm").strip() != name:
            return self.done(
                session, f"/agents/{name}", error=f"Type {name} in the box to confirm; nothing was deleted."
            )
        accounts = self.gateway().accounts
        try:
            balance = await accounts.off_loop(functools.partial(accounts.delete, name, actor="console"))
        except WebreachError as failure:
            return self.done(session, f"/agents/{name}", error=said(failure))
        return self.done(
            session, "/agents", notice=f"Deleted {name} (its key no longer works; {balance} credits went with it)."
        )

    def done(self, session: ConsoleSession, page: str, **result: Any) -> Response:
        """303 to the console's `page`, which shows `result`."""
        return self.access.flashes.see_other(session.csrf, CONSOLE + page, **result)


def profile_of(form: Form) -> dict[str, Any]:
    """The tool-profile change a settings form describes, for Accounts.update_agent: the form shows every field,
    so each is given (None, for every tool ticked or a size left blank, removes that key)."""
    chosen = [tool for tool in TOOL_NAMES if form.get(f"tool_{tool}") == "on"]
    profile: dict[str, Any] = {"tools": chosen if len(chosen) < len(TOOL_NAMES) else None}
    for size in PROFILE_SIZES:
        value = optional_whole(form.get(size), size)
        if value is not None and value < 1:
            raise InvalidInputError(f"{size} must be at least 1", hint="Leave it blank for no limit.")
        profile[size] = value
    surface = form.get("surface").strip()
    if surface and surface not in TOOL_PROFILES:
        raise InvalidInputError(f"unknown tool profile {surface!r}", hint=f"Choose one of {', '.join(TOOL_PROFILES)}.")
    profile["surface"] = surface or None
    return profile


def whole(raw: str, field: str, *, negative: bool = False) -> int:
    text = raw.strip()
    digits = text[1:] if negative and text.startswith("-") else text
    if not digits.isdigit() or len(digits) > 12:
        raise InvalidInputError(f"{field} must be a whole number", hint="Enter a number such as 30.")
    return int(text)


def optional_whole(raw: str, field: str) -> int | None:
    return None if not raw.strip() else whole(raw, field)
