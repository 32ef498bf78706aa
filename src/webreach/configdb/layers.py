"""The precedence rule, in one place, and per field which source set it and which one wins.

Highest first (docs/configuration.md, "Where a setting comes from"):

    1. environment (WEBREACH_*) and explicit arguments to Settings(...)
    2. the console (the database: engines, auto orders, the search cache and [network] proxy)
    3. webreach.toml
    4. the built-in default

So a value pinned by a deployment's environment is never silently overridden from the console: the console
shows the field as set by the environment, says its own value is not used, and the value applies again the
moment the variable is unset. The console overrides the file, which is how an operator changes a running
server without editing files or restarting it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import SecretStr

from webreach.config import CacheSettings, EngineSettings, NetworkSettings, Settings, options_text, shown_proxy

Source = Literal["environment", "arguments", "console", "webreach.toml", "default"]
PRECEDENCE: tuple[Source, ...] = ("environment", "arguments", "console", "webreach.toml", "default")
ENGINE_FIELDS = (
    "enabled", "api_key", "base_url", "rate_per_minute", "timeout", "proxy", "display_name", "default", "options",
)  # fmt: skip
SECRET_FIELDS = frozenset({"api_key", "proxy"})
ROUTING_FIELDS = ("auto_order", "auto_order_zh")
ROUTING = "routing"
CACHE_FIELDS = ("ttl_seconds", "max_entries")  # [cache]: scope "cache"
CACHE = "cache"
NETWORK_FIELDS = ("proxy",)  # [network]: scope "network"
NETWORK = "network"


def engine_scope(name: str) -> str:
    return f"engine:{name}"


@dataclass(frozen=True)
class Unreadable:
    """A stored secret this server cannot decrypt, and what to do about it."""

    message: str


@dataclass(frozen=True)
class Layer:
    """One source's value of a field, as the console may show it (secrets only as set / not set)."""

    source: Source
    shown: str


@dataclass(frozen=True)
class FieldView:
    """One field: every source that sets it (highest first), which wins, and its environment variable."""

    field: str
    secret: bool
    layers: tuple[Layer, ...]
    winner: Source
    variable: str

    @property
    def console_overridden(self) -> bool:
        """The console holds a value that a higher source hides."""
        return any(layer.source == "console" for layer in self.layers) and self.winner != "console"


class Layers:
    """The loaded settings split by source, and the database's values on top of the file's."""

    def __init__(
        self, base: Settings, env: dict[str, Any], toml: dict[str, Any], stored: dict[tuple[str, str], Any]
    ) -> None:
        self.base = base
        self.env = env
        self.toml = toml
        self.stored = stored

    def effective(self) -> Settings:
        """`base` with every console value that no higher source hides."""
        engines = dict(self.base.engines)
        for name in sorted({scope[7:] for scope, _ in self.stored if scope.startswith("engine:")}):
            updates = self._engine_updates(name)
            if updates:
                engines[name] = self.base.engine(name).model_copy(update=updates)
        update: dict[str, Any] = {"engines": engines}
        for field in ROUTING_FIELDS:
            if self._console_wins(ROUTING, field):
                update[field] = self.stored[(ROUTING, field)]
        cache = {field: self.stored[(CACHE, field)] for field in CACHE_FIELDS if self._console_wins(CACHE, field)}
        if cache:
            update["cache"] = self.base.cache.model_copy(update=cache)
        network = self._network_updates()
        if network:
            update["network"] = self.base.network.model_copy(update=network)
        return self.base.model_copy(update=update)

    def _network_updates(self) -> dict[str, Any]:
        """[network] fields the console sets; a stored proxy this server cannot decrypt is not applied (the file's
        or the environment's stays, and the console says the stored one is unreadable)."""
        updates: dict[str, Any] = {}
        for field in NETWORK_FIELDS:
            if not self._console_wins(NETWORK, field):
                continue
            value = self.stored[(NETWORK, field)]
            if not isinstance(value, Unreadable):
                updates[field] = SecretStr(value)
        return updates

    def _engine_updates(self, name: str) -> dict[str, Any]:
        updates: dict[str, Any] = {}
        for field in ENGINE_FIELDS:
            if not self._console_wins(engine_scope(name), field):
                continue
            value = self.stored[(engine_scope(name), field)]
            if isinstance(value, Unreadable):
                updates[field] = None
                updates["unreadable"] = value.message
            elif field == "options":  # the console's options add to (and override) the file's, one by one
                updates[field] = {**self.base.engine(name).options, **value}
            else:
                updates[field] = SecretStr(value) if field in SECRET_FIELDS else value
        return updates

    def _console_wins(self, scope: str, field: str) -> bool:
        return (scope, field) in self.stored and self._below_console(scope, field) not in ("environment", "arguments")

    def _path(self, scope: str, field: str) -> tuple[str, ...]:
        if scope in (CACHE, NETWORK):
            return (scope, field)
        return (field,) if scope == ROUTING else ("engines", scope[7:], field)

    def _below_console(self, scope: str, field: str) -> Source:
        """Which source other than the console set the field in the loaded settings."""
        path = self._path(scope, field)
        if _find(self.env, path) is not None:
            return "environment"
        if _find(self.toml, path) is not None:
            return "webreach.toml"
        if scope == ROUTING:
            return "arguments" if field in self.base.model_fields_set else "default"
        if scope in (CACHE, NETWORK):
            section = self.base.cache if scope == CACHE else self.base.network
            return "arguments" if field in section.model_fields_set else "default"
        configured = self.base.engines.get(path[1])
        return "arguments" if configured is not None and field in configured.model_fields_set else "default"

    def view(self, scope: str, field: str) -> FieldView:
        """Every source of one field and the winner."""
        path = self._path(scope, field)
        secret: bool | Literal["proxy"] = "proxy" if field == "proxy" else field in SECRET_FIELDS
        layers: list[Layer] = []
        env_value = _find(self.env, path)
        if env_value is not None:
            layers.append(Layer("environment", _shown(env_value, secret)))
        below = self._below_console(scope, field)
        if below == "arguments":
            layers.append(Layer("arguments", _shown(self._base_value(scope, field), secret)))
        if (scope, field) in self.stored:
            layers.append(Layer("console", _shown(self.stored[(scope, field)], secret)))
        toml_value = _find(self.toml, path)
        if toml_value is not None:
            layers.append(Layer("webreach.toml", _shown(toml_value, secret)))
        default = _default(scope, field)
        layers.append(Layer("default", "built in" if default is None and not secret else _shown(default, secret)))
        variable = "WEBREACH_" + "__".join(part.upper() for part in path)
        return FieldView(field, bool(secret), tuple(layers), layers[0].source, variable)

    def _base_value(self, scope: str, field: str) -> Any:
        if scope == ROUTING:
            return getattr(self.base, field)
        if scope in (CACHE, NETWORK):
            return getattr(self.base.cache if scope == CACHE else self.base.network, field)
        return getattr(self.base.engine(scope[7:]), field)


def _find(tree: dict[str, Any], path: tuple[str, ...]) -> Any:
    node: Any = tree
    for part in path:
        if not isinstance(node, dict) or part not in node:
            return None
        node = node[part]
    return node


def _default(scope: str, field: str) -> Any:
    if scope == CACHE:
        return CacheSettings.model_fields[field].default
    if scope == NETWORK:
        return NetworkSettings.model_fields[field].default
    if field in ROUTING_FIELDS or field == "options":
        return None
    return EngineSettings.model_fields[field].default


def _shown(value: Any, secret: bool | Literal["proxy"]) -> str:
    """How the console shows a value: a secret only as set / not set / unreadable, never any of its characters; a
    proxy as scheme://host:port with its credentials as *** (config.shown_proxy)."""
    if isinstance(value, Unreadable):
        return "stored, unreadable"
    if secret == "proxy" and value not in (None, ""):
        return shown_proxy(value.get_secret_value() if isinstance(value, SecretStr) else str(value))
    if secret:
        return "set (hidden)" if value not in (None, "") else "not set"
    if value is None:
        return "not set"
    if isinstance(value, SecretStr):
        return "set (hidden)"
    if isinstance(value, dict):
        return options_text(value) or "(empty)"
    if isinstance(value, list):
        return ", ".join(str(item) for item in value) or "(empty)"
    if isinstance(value, float):
        return f"{value:g}"
    return json.dumps(value) if isinstance(value, bool) else str(value)
