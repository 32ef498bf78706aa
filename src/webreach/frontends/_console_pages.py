"""The operator console's pages under /console (access and CSRF in frontends/_console.py):

    GET  /console/login, POST /console/login, POST /console/logout
    GET  /console/engines                        every engine: settings, key, breaker, last error, parse mode;
                                                 the auto orders (frontends/_console_config.py)
    GET  /console/engines/{name}, POST ...       one engine's settings and their sources (_console_config.py)
    POST /console/order/{field}                  reorder auto_order / auto_order_zh (_console_config.py)
    POST /console/cache                          the search cache's TTL and size (_console_config.py)
    POST /console/network                        [network] proxy, shown redacted (_console_config.py)
    POST /console/engines/{name}/test            a real probe search past the breaker (gateway.engines.probe, as
                                                 the admin API's test), web and image engines; the answer shows
                                                 on the page the button was on (form field `back`)
    POST /console/engines/{name}/reset           close the engine's breaker, as the admin endpoint does
    /console/agents[/...]                        agents, credits, quotas, profiles, recent calls, key rotation,
                                                 disable, delete (_console_agents.py)
    GET  /console/playground, POST ...           a tool call through the tool pipeline: JSON and compact views
    GET  /console/static/console.css, console.js

The playground runs the operator's calls through a Toolbox without call policies: the operator is not an agent,
so no agent's credits are spent (docs/decisions.md, "Console"). Every POST answers 303 to the page that shows
its result (frontends/_console_flash.py).
"""

from __future__ import annotations

import hmac
import secrets
from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import FileResponse, RedirectResponse, Response
from starlette.routing import Route

from webreach.config import effective_proxy
from webreach.errors import AdminRequiredError, AdminThrottledError
from webreach.frontends._console import (
    ASSETS,
    CONSOLE,
    LOGIN_COOKIE,
    SECURITY_HEADERS,
    ConsoleAccess,
    ConsoleSession,
    Gatekeeper,
    Renderer,
    form_of,
    read_form,
)
from webreach.frontends._console_agents import AgentPages
from webreach.frontends._console_config import ConfigPages, cache_context, network_context, orders_context
from webreach.frontends._console_words import engine_row, probe_view
from webreach.frontends._errors import retry_after_header
from webreach.gateway import Gateway
from webreach.tools import Toolbox


def console_routes(access: ConsoleAccess, gateway: Callable[[], Gateway]) -> list[Route]:
    """Every /console route, each page behind the access rule and the CSRF check."""
    pages = _Pages(gateway, Renderer(logins=access.needs_login()), access)
    guard = Gatekeeper(access, pages.renderer).guarded
    agents = AgentPages(gateway, pages.renderer, access)
    config = ConfigPages(gateway, pages.renderer, access)

    return [
        Route(CONSOLE, pages.home, methods=["GET"]),
        Route(f"{CONSOLE}/", pages.home, methods=["GET"]),
        Route(f"{CONSOLE}/static/console.css", pages.css, methods=["GET"]),
        Route(f"{CONSOLE}/static/console.js", pages.script, methods=["GET"]),
        Route(f"{CONSOLE}/login", pages.login, methods=["GET", "POST"]),
        Route(f"{CONSOLE}/logout", guard(pages.logout), methods=["POST"]),
        Route(f"{CONSOLE}/engines", guard(pages.engines), methods=["GET"]),
        Route(f"{CONSOLE}/engines/{{name}}", guard(config.engine), methods=["GET", "POST"]),
        Route(f"{CONSOLE}/order/{{field}}", guard(config.order), methods=["POST"]),
        Route(f"{CONSOLE}/cache", guard(config.cache), methods=["POST"]),
        Route(f"{CONSOLE}/network", guard(config.network), methods=["POST"]),
        Route(f"{CONSOLE}/engines/{{name}}/test", guard(pages.test_engine), methods=["POST"]),
        Route(f"{CONSOLE}/engines/{{name}}/reset", guard(pages.reset_engine), methods=["POST"]),
        Route(f"{CONSOLE}/agents", guard(agents.agents), methods=["GET", "POST"]),
        Route(f"{CONSOLE}/agents/{{name}}", guard(agents.agent), methods=["GET"]),
        Route(f"{CONSOLE}/agents/{{name}}/grant", guard(agents.grant), methods=["POST"]),
        Route(f"{CONSOLE}/agents/{{name}}/settings", guard(agents.settings), methods=["POST"]),
        Route(f"{CONSOLE}/agents/{{name}}/rotate", guard(agents.rotate), methods=["POST"]),
        Route(f"{CONSOLE}/agents/{{name}}/disable", guard(agents.disable), methods=["POST"]),
        Route(f"{CONSOLE}/agents/{{name}}/delete", guard(agents.delete), methods=["POST"]),
        Route(f"{CONSOLE}/playground", guard(pages.playground), methods=["GET", "POST"]),
    ]


class _Pages:
    def __init__(self, gateway: Callable[[], Gateway], renderer: Renderer, access: ConsoleAccess) -> None:
        self.gateway = gateway
        self.renderer = renderer
        self.access = access

    async def home(self, request: Request) -> Response:
        return RedirectResponse(f"{CONSOLE}/engines", status_code=303)

    async def css(self, request: Request) -> Response:
        return FileResponse(ASSETS / "console.css", media_type="text/css", headers=SECURITY_HEADERS)

    async def script(self, request: Request) -> Response:
        return FileResponse(ASSETS / "console.js", media_type="text/javascript", headers=SECURITY_HEADERS)

    # --- login ---------------------------------------------------------------------------------------------

    async def login(self, request: Request) -> Response:
        if not self.access.needs_login():
            return RedirectResponse(f"{CONSOLE}/engines", status_code=303)
        if request.method == "GET":
            return self._login_form(request, error=None)
        form = await read_form(request)
        expected = request.cookies.get(LOGIN_COOKIE, "")
        if not expected or not hmac.compare_digest(form.get("csrf").encode(), expected.encode()):
            return self._login_form(request, error="The form expired; enter the token again.", status_code=403)
        try:
            self.access.gate.verify(request, form.get("token"))
        except AdminThrottledError as refusal:
            wait = retry_after_header(refusal.retry_after) or "60"
            error = f"Too many wrong tokens from your address: try again in {wait} seconds."
            response = self._login_form(request, error=error, status_code=429)
            response.headers["Retry-After"] = wait
            return response
        except AdminRequiredError:
            return self._login_form(request, error="That is not the admin token.", status_code=401)
        response = RedirectResponse(f"{CONSOLE}/engines", status_code=303)
        self.access.open_session(request, response)
        response.delete_cookie(LOGIN_COOKIE, path=CONSOLE, secure=self.access.secure(request))
        return response

    def _login_form(self, request: Request, *, error: str | None, status_code: int = 200) -> Response:
        nonce = secrets.token_urlsafe(24)
        response = self.renderer.page("login.html", status_code, error=error, csrf=nonce, title="Log in")
        response.set_cookie(
            LOGIN_COOKIE, nonce, max_age=900, path=CONSOLE, httponly=True, samesite="strict",
            secure=self.access.secure(request),
        )  # fmt: skip
        return response

    async def logout(self, request: Request, session: ConsoleSession) -> Response:
        target = f"{CONSOLE}/login" if self.access.needs_login() else f"{CONSOLE}/engines"
        response = RedirectResponse(target, status_code=303)
        self.access.close_session(request, response)
        return response

    # --- engines -------------------------------------------------------------------------------------------

    async def engines(self, request: Request, session: ConsoleSession, **extra: Any) -> Response:
        served = self.gateway()
        statuses = served.engines.statuses()
        recent = served.engines.recent.summary()
        testable = set(served.engine_names()) | set(served.engines.image_names())
        return self.renderer.page(
            "engines.html",
            csrf=session.csrf,
            title="Engines & health",
            engines=[
                {
                    **engine_row(status, testable=status.name in testable),
                    "settings": served.settings.engine(status.name),
                    "timeout": served.settings.engine(status.name).timeout or served.settings.engine_timeout,
                    "proxied": _proxied(served, status.name),
                    "recent": recent.get(status.name),
                }
                for status in statuses
                if status.vertical == "web"
            ],
            # image engines and reverse-image backends run on their web engine's settings: listed with their state
            image_engines=[
                engine_row(status, testable=status.name in testable) for status in statuses if status.vertical != "web"
            ],
            orders=orders_context(served),
            cache=cache_context(served),
            network=network_context(served),
            problem=served.config.stored.problem,
            **extra,
        )

    async def test_engine(self, request: Request, session: ConsoleSession) -> Response:
        """A real probe search; the answer comes back to the page the button was on (the engine's, or the list)."""
        name = str(request.path_params["name"])
        served = self.gateway()
        if name not in served.engine_names() and name not in served.engines.image_names():
            return self.done(session, "/engines", notice=f"There is no engine {name!r}.")
        probe = await served.engines.probe(name)
        return self.done(session, _back(request, name, served), probe=probe_view(probe))

    async def reset_engine(self, request: Request, session: ConsoleSession) -> Response:
        name = str(request.path_params["name"])
        served = self.gateway()
        if name not in served.engines.breaker_names():
            return self.done(session, "/engines", notice=f"There is no engine {name!r}.")
        served.engines.reset(name)
        notice = f"{name}: breaker closed; the next call asks it again."
        return self.done(session, _back(request, name, served), notice=notice)

    def done(self, session: ConsoleSession, page: str, **result: Any) -> Response:
        """303 to the console's `page`, which shows `result`."""
        return self.access.flashes.see_other(session.csrf, CONSOLE + page, **result)

    # --- playground ----------------------------------------------------------------------------------------

    async def playground(self, request: Request, session: ConsoleSession, **shown: Any) -> Response:
        """GET: the form (and the last run's views, after a POST's redirect); POST: run, then show it that way."""
        served = self.gateway()
        if request.method == "POST":
            form = form_of(request)
            views = await _run(served, form.get("tool"), form.get("engine", "auto"), form.get("input"))
            return self.done(session, "/playground", asked=form.fields, views=views)
        return self.renderer.page(
            "playground.html",
            csrf=session.csrf,
            title="Playground",
            engines=served.engine_names(),
            asked=shown.get("asked", {}),
            views=shown.get("views", []),
        )


def _back(request: Request, name: str, gateway: Gateway) -> str:
    """The page a test or reset answers on: the engine's own page when the button was there, else the list."""
    if form_of(request).get("back") == "engine" and name in gateway.engine_names():
        return f"/engines/{name}"
    return "/engines"


async def _run(gateway: Gateway, tool: str, engine: str, text: str) -> list[dict[str, Any]]:
    """One call in each output format, through the tool pipeline without call policies; each view with its
    token count. The second call is the first one's twin: the cache answers it (searches and pages alike)."""
    toolbox = Toolbox(gateway, gateway.sessions, enabled=gateway.settings.tools.enabled)
    arguments = _arguments(tool, engine, text.strip())
    views = []
    for output in ("json", "compact"):
        result = await toolbox.call(tool if tool in _TOOLS else "web_search", arguments, output=output)
        views.append(
            {
                "output": output,
                "text": result.text,
                "tokens": gateway.count_tokens(result.text),
                "error": result.is_error,
            }
        )
    return views


_TOOLS = ("web_search", "web_search_multi", "web_fetch")


def _arguments(tool: str, engine: str, text: str) -> dict[str, Any]:
    if tool == "web_fetch":
        return {"url": text}
    if tool == "web_search_multi":
        return {"query": text}
    return {"query": text, "engine": engine or "auto"}


def _proxied(gateway: Gateway, name: str) -> bool:
    """Whether engine `name`'s traffic leaves through a proxy: its own, else [network] proxy ("direct": none)."""
    return effective_proxy(gateway.settings.engine(name).proxy, gateway.settings.network.proxy) is not None
