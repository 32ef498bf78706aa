"""StoredConfig: the console's settings over the database, merged with the loaded settings by the precedence rule
(layers.py), secrets sealed on the way in (secret_box.py), and the version check servers make (store.py).

The Gateway owns one. It reads the database once when it opens (nothing is created while no one has stored a
setting: a SQLite file that does not exist means "nothing stored"), and a long-running door calls `poll()` at most
once a second on the database's worker thread, never on a request's path; a write applies in the writing process
at once and everywhere else at the next poll.

Values are checked on the way in (types, ranges, URL schemes), so what the database holds always builds valid
settings; a secret is never returned, only whether it is set.
"""

from __future__ import annotations

import hashlib
import json
import logging
import math
import re
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any
from urllib.parse import urlsplit

from webreach.accounts.audit import Change as Audited
from webreach.accounts.database import Database, database_exists
from webreach.clock import Clock
from webreach.config import Settings, check_proxy, layer_values
from webreach.configdb.layers import (
    CACHE,
    CACHE_FIELDS,
    ENGINE_FIELDS,
    NETWORK,
    NETWORK_FIELDS,
    ROUTING,
    ROUTING_FIELDS,
    SECRET_FIELDS,
    FieldView,
    Layers,
    Unreadable,
    engine_scope,
)
from webreach.configdb.secret_box import SecretBox, SecretUnreadable
from webreach.configdb.store import ConfigStore, StoredValue
from webreach.errors import ConfigStoreError, InvalidInputError, WebreachError

logger = logging.getLogger(__name__)
Change = dict[tuple[str, str], Any]  # (scope, field) -> new value, None to delete the console's value
MAX_TEXT = 2048
MAX_NAME = 64
MAX_CACHE_ENTRIES = 1_000_000
MAX_CACHE_TTL = 30 * 86_400.0
MAX_OPTIONS = 16
OPTION_KEY = re.compile(r"[A-Za-z0-9_]{1,64}")


class StoredConfig:
    """The console's settings for one Gateway (see the module docstring)."""

    engine_fields = ENGINE_FIELDS  # what the console may set per engine (scope "engine:<name>")
    routing_fields = ROUTING_FIELDS  # and globally (scope "routing")
    cache_fields = CACHE_FIELDS  # and the search cache's (scope "cache")
    network_fields = NETWORK_FIELDS  # and the outbound proxy's (scope "network")

    def __init__(self, base: Settings, *, database: Callable[[], Database], url: str, clock: Clock) -> None:
        self.base = base
        self._database = database
        self._url = url
        self._clock = clock
        self._box = SecretBox(base)
        self._env, self._toml = layer_values()
        self._store: ConfigStore | None = None
        self._layers = Layers(base, self._env, self._toml, {})
        self.version: int | None = None  # the version the effective settings were built from
        self._swap = threading.Lock()
        self.problem: str | None = None  # why the database could not be read, for the console

    @property
    def key_source(self) -> str:
        return self._box.source

    def load(self) -> Settings:
        """The effective settings with what the database holds now; the loaded settings alone when it holds
        nothing or cannot be read (logged, and shown in the console, never raised)."""
        try:
            with _database_trouble():
                store = self._opened(create=False)
                if store is None:
                    return self._layers.effective()
                version, values = store.load()
        except ConfigStoreError as trouble:
            if self.problem != trouble.message:
                logger.warning("console settings: %s; running without them", trouble.message)
            self.problem = trouble.message
            return self._layers.effective()
        self.problem = None
        with self._swap:  # a poll on its thread and a write on the loop may load at once: the newer one stays
            if self.version is None or version >= self.version:
                self._layers = Layers(self.base, self._env, self._toml, dict(self._decoded(values)))
                self.version = version
            return self._layers.effective()

    def poll(self) -> Settings | None:
        """New effective settings when another process changed the stored ones since the last load, else None.
        One one-row read; made on the database's worker thread by the door's background task."""
        try:
            with _database_trouble():
                store = self._opened(create=False)
                if store is None or store.version() == self.version:
                    return None
        except ConfigStoreError:
            return None if self.problem is not None else self.load()
        return self.load()

    def write(self, changes: Change, *, actor: str = "operator") -> Settings:
        """Store `changes` (checked first; secrets sealed) under one new version, with their audit entry (which
        names the fields, never a value); the new effective settings."""
        changes = {**self._defaults_cleared(changes), **changes}
        encoded = {key: None if value is None else self._encoded(key, value) for key, value in changes.items()}
        detail = {
            "set": sorted(f"{scope}.{field}" for (scope, field), value in changes.items() if value is not None),
            "removed": sorted(f"{scope}.{field}" for (scope, field), value in changes.items() if value is None),
        }
        with _database_trouble():
            store = self._opened(create=True)
            assert store is not None
            now = self._clock.now()
            store.write(encoded, now=now, audit=Audited(actor, "settings", now, detail))
        return self.load()

    def _defaults_cleared(self, changes: Change) -> Change:
        """One default provider: making an engine the default stores default=false for every other engine that is
        the default now (by the console's value or the file's)."""
        chosen = {scope for (scope, field), value in changes.items() if field == "default" and value is True}
        if not chosen:
            return {}
        if len(chosen) > 1:
            raise InvalidInputError("only one engine can be the default provider", hint="Set default on one engine.")
        effective = self._layers.effective()
        named = {engine_scope(name) for name, engine in effective.engines.items() if engine.default}
        named |= {scope for (scope, field), value in self._layers.stored.items() if field == "default" and value}
        for scope in sorted(named - chosen):
            pinned = self._layers.view(scope, "default")
            if pinned.winner in ("environment", "arguments"):
                raise InvalidInputError(
                    f"{scope[7:]} is the default provider by {pinned.variable}, which the console cannot override",
                    hint=f"Unset {pinned.variable} (or set it to false), then choose the default here.",
                )
        return {(scope, "default"): False for scope in named - chosen}

    def _opened(self, *, create: bool) -> ConfigStore | None:
        if self._store is None:
            if not create and not database_exists(self._url):
                return None
            self._store = ConfigStore(self._database())
        return self._store

    def _encoded(self, key: tuple[str, str], value: Any) -> tuple[str, bool]:
        field = key[1]
        checked = check_value(field, value)
        if field in SECRET_FIELDS:
            return self._box.seal(str(checked)), True
        return json.dumps(checked), False

    def _decoded(self, values: list[StoredValue]) -> Iterator[tuple[tuple[str, str], Any]]:
        for stored in values:
            key = (stored.scope, stored.field)
            if stored.secret:
                try:
                    yield key, self._box.open(stored.value)
                except SecretUnreadable as lost:
                    yield key, Unreadable(str(lost))
            else:
                try:
                    yield key, check_value(stored.field, json.loads(stored.value))
                except (ValueError, InvalidInputError):  # written by a newer version, or by hand: skip it
                    logger.warning("console settings: ignoring the unreadable value of %s.%s", *key)

    # --- the console's sessions (a SHA-256 of the cookie's id is stored, never the id) ------------------------

    def open_session(self, session_id: str, csrf: str, expires: float) -> None:
        with _database_trouble():
            store = self._opened(create=True)
            assert store is not None
            store.open_session(_digest(session_id), csrf, expires, now=self._clock.now())

    def session(self, session_id: str) -> tuple[str, float] | None:
        """A live session's CSRF token and expiry (None: unknown or expired)."""
        with _database_trouble():
            store = self._opened(create=False)
            return None if store is None else store.session(_digest(session_id), now=self._clock.now())

    def claim_form(self, token: str, expires: float) -> bool:
        """Use a one-time form token (kept until `expires`); False when it was used before."""
        with _database_trouble():
            store = self._opened(create=True)
            assert store is not None
            return store.claim_form(_digest(token), expires, now=self._clock.now())

    def close_session(self, session_id: str) -> None:
        with _database_trouble():
            store = self._opened(create=False)
            if store is not None:
                store.close_session(_digest(session_id))

    # --- what the console shows ------------------------------------------------------------------------------

    def engine_view(self, name: str) -> list[FieldView]:
        return [self._layers.view(engine_scope(name), field) for field in ENGINE_FIELDS]

    def routing_view(self) -> list[FieldView]:
        return [self._layers.view(ROUTING, field) for field in ROUTING_FIELDS]

    def cache_view(self) -> list[FieldView]:
        return [self._layers.view(CACHE, field) for field in CACHE_FIELDS]

    def network_view(self) -> list[FieldView]:
        return [self._layers.view(NETWORK, field) for field in NETWORK_FIELDS]

    def stored(self, scope: str, field: str) -> Any:
        """The console's own value of a field (None when it holds none); secrets only as True (set)."""
        value = self._layers.stored.get((scope, field))
        if field in SECRET_FIELDS and value is not None:
            return True
        return value


@contextmanager
def _database_trouble() -> Iterator[None]:
    """Any failure of the database (a locked or unwritable SQLite file, PostgreSQL down: each driver has its own
    exception tree) becomes ConfigStoreError, naming its type; our own typed errors pass."""
    try:
        yield
    except WebreachError:
        raise
    except Exception as exc:  # the drivers' errors have no common base we may import here
        raise ConfigStoreError(f"the settings database cannot be used ({type(exc).__name__}: {exc})") from None


def _digest(session_id: str) -> str:
    return hashlib.sha256(session_id.encode("utf-8", "surrogateescape")).hexdigest()


def check_value(field: str, value: Any, *, label: str | None = None) -> Any:
    """`value` as the field takes it, or InvalidInputError saying what is wrong (naming the field `label`, as a
    form shows it, when given)."""
    name = label or field
    if field in ("enabled", "default"):
        if isinstance(value, bool):
            return value
        raise InvalidInputError(f"{name} must be true or false")
    if field == "options":
        return _options(value)
    if field in ("rate_per_minute", "timeout"):
        return _positive(field, value, name)
    if field in CACHE_FIELDS:
        return _cache_number(field, value)
    if field in ROUTING_FIELDS:
        if isinstance(value, list) and all(isinstance(n, str) and 0 < len(n) <= 64 for n in value):
            return list(value)
        raise InvalidInputError(f"{name} must be a list of engine names")
    if not isinstance(value, str) or not value.strip() or len(value) > MAX_TEXT:
        raise InvalidInputError(f"{name} must be non-empty text of at most {MAX_TEXT} characters")
    if any(ord(c) < 32 or ord(c) == 127 for c in value):
        raise InvalidInputError(f"{name} must not hold control characters")
    if field == "base_url":
        return _url(field, value.strip(), ("http", "https"), name)
    if field == "proxy":  # the same form as in webreach.toml (config.check_proxy), "direct" included
        if not check_proxy(value):
            raise InvalidInputError(
                f"{name} must be a URL starting with http://, https://, socks5:// or socks5h:// (scheme, host and port "
                'only), or "direct" for none over [network] proxy',
                hint="e.g. http://proxy.example:3128",
            )
        return value.strip()
    if field == "display_name" and len(value.strip()) > MAX_NAME:
        raise InvalidInputError(f"{name} must be at most {MAX_NAME} characters")
    return value.strip()


def _options(value: Any) -> dict[str, str]:
    """Engine options from an object of texts or the console's "key=value, key=value" text."""
    if isinstance(value, str):
        pairs = [part.partition("=") for part in value.split(",") if part.strip()]
        if any(not sep for _, sep, _ in pairs):
            raise InvalidInputError("options must be key=value pairs separated by commas", hint="e.g. engine=baidu")
        value = {key.strip(): text.strip() for key, _, text in pairs}
    if not isinstance(value, dict) or len(value) > MAX_OPTIONS:
        raise InvalidInputError(f'options must be an object of at most {MAX_OPTIONS} texts, e.g. {{"engine": "baidu"}}')
    checked: dict[str, str] = {}
    for key, text in value.items():
        if not isinstance(key, str) or not OPTION_KEY.fullmatch(key):
            raise InvalidInputError(f"option name {key!r} must be letters, digits or _ (at most 64)")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_NAME:
            raise InvalidInputError(f"option {key} must be non-empty text of at most {MAX_NAME} characters")
        if any(ord(c) < 32 or ord(c) == 127 for c in text):
            raise InvalidInputError(f"option {key} must not hold control characters")
        checked[key] = text.strip()
    return checked


def _cache_number(field: str, value: Any) -> float | int:
    """ttl_seconds: 0 (caching off) to 30 days; max_entries: a whole number from 1 to 1,000,000."""
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if field == "max_entries":
        if isinstance(number, float) and number.is_integer():
            number = int(number)
        if not isinstance(number, int) or not 1 <= number <= MAX_CACHE_ENTRIES:
            raise InvalidInputError(f"max_entries must be a whole number from 1 to {MAX_CACHE_ENTRIES:,}")
        return number
    if number is None or not math.isfinite(number) or not 0 <= number <= MAX_CACHE_TTL:
        raise InvalidInputError(f"ttl_seconds must be seconds from 0 (no caching) to {MAX_CACHE_TTL:g}")
    return float(number)


def _positive(field: str, value: Any, name: str) -> float:
    number = value if isinstance(value, int | float) and not isinstance(value, bool) else None
    if isinstance(value, str):
        try:
            number = float(value)
        except ValueError:
            number = None
    limit = 600.0 if field == "timeout" else 1_000_000.0
    if number is None or not math.isfinite(number) or not 0 < number <= limit:
        raise InvalidInputError(f"{name} must be a number above 0 and at most {limit:,.0f}", hint="e.g. 30.")
    return float(number)


def _url(field: str, value: str, schemes: tuple[str, ...], name: str) -> str:
    try:
        parts = urlsplit(value)
        host, _ = parts.hostname, parts.port  # a port that is not a number raises here
    except ValueError:
        host = None
    if host is None or parts.scheme not in schemes:
        raise InvalidInputError(
            f"{name} must be a URL starting with {' or '.join(s + '://' for s in schemes)}",
            hint="e.g. http://127.0.0.1:8888" if field == "base_url" else "e.g. http://proxy.example:3128",
        )
    return value.rstrip("/") if field == "base_url" else value
