"""The console's engine settings and auto orders (access and CSRF in frontends/_console.py):

    GET  /console/engines/{name}    one engine's settings: per field every source's value and the winner
    POST /console/engines/{name}    store the console's values (a blank field removes the console's value; a
                                    secret left blank is kept, and is never sent back to the browser); when a
                                    value is refused nothing is stored and the page shows each error at its
                                    field with what was typed (secrets excepted)
    POST /console/order/{field}     auto_order / auto_order_zh: move an engine up, down or first (the default
                                    engine), remove or add one, or go back to the default order
    POST /console/network           [network] proxy, every outbound path's proxy: set it (checked: http, https or
                                    socks5, host and port), clear it, or "direct"; shown with its credentials as ***

Each POST answers 303 to the page showing its result; an order move carries a one-time token, so a replayed one does
nothing (frontends/_console.py). Every change goes through gateway.config.change: stored in the database, applied here
at once and on every other server sharing the database within a second. The reordering works with plain buttons
(keyboard and mouse, no script); console.js adds drag and drop on top when scripts run.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from starlette.requests import Request
from starlette.responses import Response

from webreach.config import options_text
from webreach.errors import InvalidInputError, WebreachError
from webreach.frontends._console import CONSOLE, ConsoleAccess, ConsoleSession, Form, Renderer, form_of
from webreach.frontends._console_words import engine_row, said
from webreach.gateway import Gateway

LABELS = {
    "enabled": "Enabled",
    "api_key": "API key",
    "base_url": "Base URL",
    "rate_per_minute": "Rate per minute",
    "timeout": "Timeout (seconds)",
    "proxy": "Proxy URL",
    "display_name": "Display name",
    "default": "Default provider",
    "options": "Engine options",
}
NETWORK_LABEL = "Outbound proxy"
CACHE_LABELS = {"ttl_seconds": "Cache TTL (seconds)", "max_entries": "Cache size (entries)"}
SECRET = ("api_key", "proxy")  # never sent back to the browser, not even as typed
ORDERS = {"auto_order": ("Any language", "webreach"), "auto_order_zh": ("Chinese queries", "网页搜索")}


REPLAYED = "This form was already sent: nothing was done again."


class ConfigPages:
    def __init__(self, gateway: Callable[[], Gateway], renderer: Renderer, access: ConsoleAccess) -> None:
        self.gateway = gateway
        self.renderer = renderer
        self.access = access

    async def engine(self, request: Request, session: ConsoleSession, **shown: Any) -> Response:
        """GET: one engine's settings (and the result of the save that led here); POST: save, then 303 there."""
        served = self.gateway()
        name = str(request.path_params["name"])
        if name not in served.engine_names():
            return self.renderer.page("refused.html", 404, reason="missing", message=f"There is no engine {name!r}.")
        if request.method == "POST":
            return self.access.flashes.see_other(
                session.csrf, f"{CONSOLE}/engines/{name}", **save(served, name, form_of(request))
            )
        return self.renderer.page(
            "engine.html",
            csrf=session.csrf,
            title=f"Engine {name}",
            engine=engine_context(served, name, shown.pop("typed", None)),
            errors=shown.pop("errors", {}),
            **shown,
        )

    async def order(self, request: Request, session: ConsoleSession) -> Response:
        """One order action (a replay of the same form does nothing), then 303 to the engines page."""
        field = str(request.path_params["field"])
        if field not in ORDERS:
            message = f"There is no order {field!r}."
        elif not self.access.first_use(form_of(request)):
            message = REPLAYED
        else:
            try:
                message = reorder(self.gateway(), field, form_of(request))
            except WebreachError as failure:
                message = said(failure)
        return self.access.flashes.see_other(session.csrf, f"{CONSOLE}/engines", notice=message)

    async def cache(self, request: Request, session: ConsoleSession) -> Response:
        """The search cache's TTL and size (blank: the console's value removed), then 303 to the engines page."""
        try:
            message = save_cache(self.gateway(), form_of(request))
        except WebreachError as failure:  # shown as the order forms' refusals are: the engines page's notice
            message = said(failure)
        return self.access.flashes.see_other(session.csrf, f"{CONSOLE}/engines", notice=message)

    async def network(self, request: Request, session: ConsoleSession) -> Response:
        """[network] proxy: set, cleared or kept (a blank field), then 303 to the engines page with the outcome."""
        try:
            message = save_network(self.gateway(), form_of(request))
        except WebreachError as failure:  # the refusal names the field, never what was typed (it may hold a password)
            message = said(failure)
        return self.access.flashes.see_other(session.csrf, f"{CONSOLE}/engines", notice=message)


def save(gateway: Gateway, name: str, form: Form) -> dict[str, Any]:
    """Store what an engine's settings form changed; the notice, or the errors per field with what was typed (the
    page shows each at its field, the typed value kept, and stores nothing until every field is right)."""
    try:
        changes = engine_changes(gateway, name, form)
    except FieldErrors as refused:
        typed = {field: form.get(field) for field in refused.errors if field not in SECRET}
        return {"errors": refused.errors, "typed": typed, "error": "Nothing was saved: correct the fields marked."}
    if not changes:
        return {"notice": "Nothing changed."}
    try:
        gateway.config.change(changes, actor="console")
    except WebreachError as failure:
        return {"error": said(failure)}
    return {"notice": f"Saved {', '.join(LABELS[f] for _, f in sorted(changes))}."}


class FieldErrors(Exception):
    """A settings form's values that cannot be stored: field -> what is wrong, in operator words."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__(errors)
        self.errors = errors


def engine_context(gateway: Gateway, name: str, typed: dict[str, str] | None = None) -> dict[str, Any]:
    """One engine's status and, per field, its sources for the settings page (the built-in default as the value
    it is; `typed`: values a refused save had, shown again in their fields)."""
    stored = gateway.config.stored
    status = next(s for s in gateway.engines.statuses() if s.name == name)
    built_in = gateway.engines.built_in(name)
    fields = []
    for view in stored.engine_view(name):
        console = stored.stored(f"engine:{name}", view.field)
        layers = [{"source": layer.source, "shown": layer.shown} for layer in view.layers]
        if layers[-1]["source"] == "default" and not view.secret:
            layers[-1]["shown"] = _built_in_text(view.field, built_in.get(view.field))
        fields.append(
            {
                "field": view.field,
                "label": LABELS[view.field],
                "secret": view.secret,
                "winner": view.winner,
                "variable": view.variable,
                "layers": layers,
                "overridden": view.console_overridden,
                "console": (typed or {}).get(view.field, "" if console is None or view.secret else _text(console)),
                "console_set": console is not None,
            }
        )
    return {
        "name": name,
        "status": engine_row(status, testable=True),
        "fields": fields,
        "key_source": stored.key_source,
    }


def _built_in_text(field: str, value: Any) -> str:
    if value is None:
        return "none (direct connection)" if field == "proxy" else "not set"
    if isinstance(value, bool):
        return "on" if value else "off"
    if field == "timeout":
        return f"{value:g} s (the server's engine_timeout)"
    if field == "rate_per_minute":
        return f"{value:g} per minute (the engine's own pace)"
    return f"{value} (the engine's own)" if field == "base_url" else str(value)


def engine_changes(gateway: Gateway, name: str, form: Form) -> dict[tuple[str, str], Any]:
    """The changes a settings form asks for, only where they differ from what the console holds; FieldErrors
    naming every field whose value cannot be stored."""
    stored = gateway.config.stored
    scope = f"engine:{name}"
    changes: dict[tuple[str, str], Any] = {}
    errors: dict[str, str] = {}
    for field in ("enabled", "default"):
        chosen = {"on": True, "off": False, "": None}.get(form.get(field))
        if chosen != stored.stored(scope, field):
            changes[(scope, field)] = chosen
    for field in ("api_key", "proxy", "base_url", "rate_per_minute", "timeout", "display_name", "options"):
        text = form.get(field).strip()
        held = stored.stored(scope, field)
        if field in SECRET and form.get(f"clear_{field}") == "on":
            if held:
                changes[(scope, field)] = None
        elif not text:
            if field not in SECRET and held is not None:
                changes[(scope, field)] = None
        elif field in SECRET or held is None or text != _text(held):
            try:
                gateway.config.check(field, text, label=LABELS[field])
            except InvalidInputError as refused:
                errors[field] = said(refused)
                continue
            changes[(scope, field)] = text
    if errors:
        raise FieldErrors(errors)
    return changes


def cache_context(gateway: Gateway) -> list[dict[str, Any]]:
    """The cache's fields for the engines page: each one's winner, sources and the console's own value."""
    stored = gateway.config.stored
    views = stored.cache_view()
    return [
        {
            "field": view.field,
            "label": CACHE_LABELS[view.field],
            "winner": view.winner,
            "layers": [{"source": layer.source, "shown": layer.shown} for layer in view.layers],
            "console": "" if (held := stored.stored("cache", view.field)) is None else _text(held),
        }
        for view in views
    ]


def save_cache(gateway: Gateway, form: Form) -> str:
    """Store the cache form's changes (text is checked by the database layer); the notice to show."""
    stored = gateway.config.stored
    changes: dict[tuple[str, str], Any] = {}
    for field in stored.cache_fields:
        text, held = form.get(field).strip(), stored.stored("cache", field)
        if not text:
            if held is not None:
                changes[("cache", field)] = None
            continue
        try:
            number = float(text)
        except ValueError:
            raise InvalidInputError(f"{CACHE_LABELS[field]} must be a number") from None
        if held is None or number != held:
            changes[("cache", field)] = number
    if not changes:
        return "Nothing changed."
    gateway.config.change(changes, actor="console")
    return f"Saved {', '.join(CACHE_LABELS[f] for _, f in sorted(changes))}."


def network_context(gateway: Gateway) -> dict[str, Any]:
    """[network] proxy for the engines page: the winner, every source (proxies as scheme://***@host:port) and its
    variable; the console's own value is never sent back, only whether it holds one."""
    stored = gateway.config.stored
    view = stored.network_view()[0]
    return {
        "winner": view.winner,
        "variable": view.variable,
        "layers": [{"source": layer.source, "shown": layer.shown} for layer in view.layers],
        "overridden": view.console_overridden,
        "console_set": stored.stored("network", "proxy") is not None,
    }


def save_network(gateway: Gateway, form: Form) -> str:
    """Store the network form's proxy ("clear_proxy" removes the console's; blank keeps it: a secret is never
    shown to be typed again); the notice to show, naming the proxy now in effect, redacted."""
    held = gateway.config.stored.stored("network", "proxy")
    text = form.get("proxy").strip()
    if form.get("clear_proxy") == "on":
        if held is None:
            return "Nothing changed."
        value: str | None = None
    elif not text:
        return "Nothing changed."
    else:
        value = gateway.config.check("proxy", text, label=NETWORK_LABEL)
    gateway.config.change({("network", "proxy"): value}, actor="console")
    view = gateway.config.stored.network_view()[0]
    effect = view.layers[0].shown
    done = f"Saved {NETWORK_LABEL}." if value is not None else f"Removed the console's {NETWORK_LABEL}."
    if view.console_overridden:
        return f"{done} {view.variable} in the environment wins over it: outbound proxy {effect}."
    return f"{done} Outbound proxy now: {effect}."


def orders_context(gateway: Gateway) -> list[dict[str, Any]]:
    """Each auto order as the engines page shows it: the engines in order, where the order comes from, the rest."""
    views = {view.field: view for view in gateway.config.stored.routing_view()}
    usable = {status.name: status.usable for status in gateway.engines.statuses()}
    shown = []
    for field, (label, sample) in ORDERS.items():
        names = gateway.engines.auto_order(sample)
        view = views[field]
        source: str = view.winner
        if view.winner == "default":
            follows = field == "auto_order_zh" and gateway.settings.auto_order
            source = "the any-language order (none of its own)" if follows else "default: every usable engine"
        elif not getattr(gateway.settings, field):  # set, but to no engine: auto does not ask "no engines"
            source = f"{view.winner}, empty: auto asks every usable engine"
        shown.append(
            {
                "field": field,
                "label": label,
                "names": [{"name": n, "usable": usable.get(n, False)} for n in names],
                "source": source,
                "console_set": any(layer.source == "console" for layer in view.layers),
                "others": [n for n in gateway.engine_names() if n not in names],
            }
        )
    return shown


def reorder(gateway: Gateway, field: str, form: Form) -> str:
    """Apply one order action; the message to show."""
    label, sample = ORDERS[field]
    action, _, name = form.get("action").partition(":")
    if action == "default":
        gateway.config.change({("routing", field): None}, actor="console")
        return f"{label}: back to the default order; auto now asks {', '.join(gateway.engines.auto_order(sample))}."
    names = gateway.engines.auto_order(sample)
    if action == "set":  # console.js after a drag and drop: the whole order
        wanted = [n.strip() for n in form.get("order").split(",") if n.strip()]
        if sorted(wanted) != sorted(names):
            raise InvalidInputError("the order changed meanwhile", hint="Reload the page and try again.")
        names = wanted
    elif action == "add":
        name = form.get("add_name")
        if name in names or name not in gateway.engine_names():
            raise InvalidInputError(f"cannot add {name!r} to the order", hint="Pick an engine not in it yet.")
        names.append(name)
    elif name not in names:
        raise InvalidInputError(f"{name!r} is not in the order", hint="Reload the page and try again.")
    else:
        names = moved(names, name, action)
    if not names:  # an empty order is no order: auto would ask the default list, not "no engines"
        raise InvalidInputError(
            f"the order ({label}) needs at least one engine: {name} is its last",
            hint="Add another engine first, or use the default order.",
        )
    gateway.config.change({("routing", field): names}, actor="console")
    return f"{label}: auto now asks {', '.join(gateway.engines.auto_order(sample))}."


def moved(names: list[str], name: str, action: str) -> list[str]:
    """`names` with `name` moved up, down, to the top ("top": the default engine) or removed."""
    at = names.index(name)
    rest = names[:at] + names[at + 1 :]
    target = {"up": max(0, at - 1), "down": min(len(rest), at + 1), "top": 0}.get(action)
    if action == "remove":
        return rest
    if target is None:
        raise InvalidInputError(f"unknown order action {action!r}")
    return [*rest[:target], name, *rest[target:]]


def _text(value: Any) -> str:
    if isinstance(value, dict):
        return options_text(value)
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)
