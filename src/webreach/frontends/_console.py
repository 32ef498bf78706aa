"""The operator console's access and rendering: who may open /console, its sessions, CSRF tokens and templates.

Access follows the admin gate (frontends/_admin.py): with `[server] admin_token` set, an operator logs in with
the token through a form and gets a session cookie (HttpOnly, SameSite=Strict, Path=/console, 8 hours; Secure
when the request came over HTTPS or `[server] secure_cookies` says so); without a token only loopback clients are
served, and they get a session on their first page. Every form carries the session's CSRF token and every POST is
refused (403) without it; the login form, which has no session yet, uses a double-submit cookie instead, and wrong
tokens there count against the admin gate's throttle. Sessions live in the console settings' database
(ConsoleAccess), so they survive a restart.

Every form POST answers 303 to a page that shows its result (frontends/_console_flash.py), and the forms whose
repeat would do something twice (a credit grant, a new agent, an order move) carry a one-time token (`once`): a
replayed POST is a no-op that says so. Used tokens are kept in the settings' database as sessions are.

Pages are server-rendered Jinja2 templates shipped in frontends/console/ with one CSS file and one small script
served from the package: no CDN, no fonts, no build step. Every page works without the script (it only adds drag
and drop to the engine orders, whose buttons do the same); the Content-Security-Policy allows scripts from this
server's own files only, never inline code.
"""

from __future__ import annotations

import contextlib
import functools
import hmac
import secrets
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.responses import HTMLResponse, RedirectResponse, Response

from webreach.clock import Clock
from webreach.errors import ConfigStoreError
from webreach.frontends._admin import AdminGate, is_loopback
from webreach.frontends._console_flash import Flashes
from webreach.frontends._console_words import when
from webreach.gateway import Gateway

if TYPE_CHECKING:
    import jinja2

CONSOLE = "/console"
COOKIE = "webreach_console"
LOGIN_COOKIE = "webreach_console_login"
SESSION_SECONDS = 8 * 3600.0
MAX_FORM_BYTES = 64 * 1024
ASSETS = Path(__file__).resolve().parent / "console"
# scripts and styles only from this server's files (no inline code), forms post only here, never framed
SECURITY_HEADERS = {
    "Content-Security-Policy": "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'none'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # "no-referrer" makes Chromium send Origin: null, which the guard refuses
    "Cache-Control": "no-store",  # a page holding a new agent key must not sit in a cache
}


@dataclass
class ConsoleSession:
    """One logged-in browser: its CSRF token and when it expires."""

    csrf: str
    expires: float


@dataclass
class ConsoleAccess:
    """The console's sessions and the rule for opening them (see the module docstring).

    Sessions are kept in the database the console's settings live in (`gateway`), so a restart, or another
    replica behind a balancer, keeps an operator logged in; only a SHA-256 of the cookie's id is stored. When that
    database cannot be used, sessions (and used form tokens) are kept in this process instead.
    """

    gate: AdminGate
    clock: Clock
    gateway: Callable[[], Gateway] | None = None
    secure_cookies: Literal["auto"] | bool = "auto"
    sessions: dict[str, ConsoleSession] = field(default_factory=dict)
    used_forms: dict[str, float] = field(default_factory=dict)
    flashes: Flashes = field(init=False)

    def __post_init__(self) -> None:
        self.flashes = Flashes(self.clock)

    def session_of(self, request: Request) -> ConsoleSession | None:
        """The request's live session, if its cookie names one (expired ones are dropped)."""
        now = self.clock.now()
        for sid in [sid for sid, held in self.sessions.items() if held.expires <= now]:
            del self.sessions[sid]
        sid = request.cookies.get(COOKIE, "")
        if not sid or sid in self.sessions or self.gateway is None:
            return self.sessions.get(sid)
        try:
            stored = self.gateway().config.stored.session(sid)
        except ConfigStoreError:
            return None
        return None if stored is None else ConsoleSession(csrf=stored[0], expires=stored[1])

    def open_session(self, request: Request, response: Response) -> ConsoleSession:
        """A new session, its cookie set on `response`."""
        sid = secrets.token_urlsafe(32)
        session = ConsoleSession(csrf=secrets.token_urlsafe(32), expires=self.clock.now() + SESSION_SECONDS)
        try:
            if self.gateway is None:
                raise ConfigStoreError("no database")
            self.gateway().config.stored.open_session(sid, session.csrf, session.expires)
        except ConfigStoreError:
            self.sessions[sid] = session
        response.set_cookie(
            COOKIE, sid, max_age=int(SESSION_SECONDS), path=CONSOLE, httponly=True, samesite="strict",
            secure=self.secure(request),
        )  # fmt: skip
        return session

    def secure(self, request: Request) -> bool:
        """Whether cookies get the Secure flag: `[server] secure_cookies`, or with "auto" whether the request came
        over HTTPS (behind a proxy in `[server] trusted_proxies`: its X-Forwarded-Proto, applied by uvicorn)."""
        return request.url.scheme == "https" if self.secure_cookies == "auto" else self.secure_cookies

    def close_session(self, request: Request, response: Response) -> None:
        sid = request.cookies.get(COOKIE, "")
        self.sessions.pop(sid, None)
        if sid and self.gateway is not None:
            with contextlib.suppress(ConfigStoreError):
                self.gateway().config.stored.close_session(sid)
        response.delete_cookie(COOKIE, path=CONSOLE, httponly=True, samesite="strict", secure=self.secure(request))

    def first_use(self, form: Form) -> bool:
        """Whether the form's one-time token is new (now used); False for a replay or a form without one."""
        token = form.get("once")
        if not 16 <= len(token) <= 128:
            return False
        expires = self.clock.now() + SESSION_SECONDS  # a replay later than this has lost its session too
        try:
            if self.gateway is None:
                raise ConfigStoreError("no database")
            return self.gateway().config.stored.claim_form(token, expires)
        except ConfigStoreError:
            now = self.clock.now()
            for used in [used for used, until in self.used_forms.items() if until <= now]:
                del self.used_forms[used]
            if token in self.used_forms:
                return False
            self.used_forms[token] = expires
            return True

    def needs_login(self) -> bool:
        return self.gate.token is not None


@dataclass
class Form:
    """A POSTed urlencoded form: the first value of each field."""

    fields: dict[str, str]

    def get(self, name: str, default: str = "") -> str:
        return self.fields.get(name, default)


async def read_form(request: Request) -> Form:
    """The request's urlencoded body, capped at MAX_FORM_BYTES (the rest is ignored: console forms are small)."""
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_FORM_BYTES:
            break
    parsed = parse_qs(raw[:MAX_FORM_BYTES].decode("utf-8", errors="replace"), keep_blank_values=True)
    return Form({name: values[0] for name, values in parsed.items()})


class Renderer:
    """The console's Jinja2 templates, autoescaped, rendered into responses with the security headers.

    Jinja2 and the template environment load on the first page, not with the server: a server nobody opens the
    console of never holds them (about 2 MB of an idle server's memory, bench/serve_memory.py).
    """

    def __init__(self, *, logins: bool = True) -> None:
        """`logins`: whether the console has logins (an admin token); without, no page offers "Log out"."""
        self.logins = logins

    @functools.cached_property
    def env(self) -> jinja2.Environment:
        import jinja2

        env = jinja2.Environment(
            loader=jinja2.FileSystemLoader(ASSETS / "templates"),
            autoescape=True,
            undefined=jinja2.StrictUndefined,
            trim_blocks=True,
            lstrip_blocks=True,
        )
        env.filters["when"] = when
        env.globals["logins"] = self.logins
        env.globals["once"] = lambda: secrets.token_urlsafe(24)  # a one-time form token, fresh per form
        return env

    def page(self, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
        html = self.env.get_template(template).render(console=CONSOLE, **context)
        return HTMLResponse(html, status_code=status_code, headers=SECURITY_HEADERS)


PageHandler = Callable[..., Awaitable[Response]]  # (request, session, **result of the POST that led here)


class Gatekeeper:
    """Wraps page handlers: the access rule first, then (for POST) the CSRF check; a GET gets the result of the
    POST that redirected to it (frontends/_console_flash.py) as keyword arguments."""

    def __init__(self, access: ConsoleAccess, renderer: Renderer) -> None:
        self.access = access
        self.renderer = renderer

    def guarded(self, handler: PageHandler) -> Callable[[Request], Awaitable[Response]]:
        async def page(request: Request) -> Response:
            if not self.access.needs_login() and not is_loopback(request):
                return self.renderer.page("refused.html", 403, reason="loopback")
            session = self.access.session_of(request)
            if session is None and self.access.needs_login():
                return RedirectResponse(f"{CONSOLE}/login", status_code=303)
            fresh: Response | None = None
            if session is None:  # loopback without a token: the first page opens a session
                fresh = Response()
                session = self.access.open_session(request, fresh)
            if request.method == "POST":
                if not await _csrf_ok(request, session):
                    return self.renderer.page("refused.html", 403, reason="csrf")
                response = await handler(request, session)
            else:
                response = await handler(request, session, **self.access.flashes.take(session.csrf, request))
            if fresh is not None and "set-cookie" in fresh.headers:
                response.raw_headers.append((b"set-cookie", fresh.headers["set-cookie"].encode("latin-1")))
            return response

        return page


async def _csrf_ok(request: Request, session: ConsoleSession) -> bool:
    form = await read_form(request)
    request.state.form = form  # the body is read once; the handler takes the parsed form from here
    return hmac.compare_digest(form.get("csrf").encode(), session.csrf.encode())


def form_of(request: Request) -> Form:
    """The form the CSRF check already read."""
    form: Form = request.state.form
    return form
