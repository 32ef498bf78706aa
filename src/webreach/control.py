"""The control plane beside the Gateway: the engines' operations (Engines) and the console's settings (Config).

The Gateway offers search, read and images to the tools; operators' doors (CLI `engines`, the console, the admin
API) reach these through `gateway.engines` and `gateway.config`. Both sit over the gateway's own search service,
so a reset or a setting changed here is the one the gateway's searches see.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from webreach.clock import Clock
from webreach.config import Settings
from webreach.configdb.service import StoredConfig, check_value
from webreach.errors import InvalidInputError, UnknownEngineError
from webreach.models import EngineAttempt
from webreach.policies.parse_health import ParseHealth
from webreach.search.canary import CANARY_QUERY, CanaryResult
from webreach.search.recent_attempts import RecentAttempts
from webreach.search.service import EngineStatus, Searching
from webreach.state.breaker_followers import Pickup
from webreach.state.sqlite_file import default_state_path

if TYPE_CHECKING:
    from webreach.state.redis_connection import RedisConnection

logger = logging.getLogger(__name__)
CONFIG_POLL = 1.0  # seconds between looks at the console settings' version, per long-running server


class Engines:
    """Every engine's operator view: names, statuses, breakers, probes, canaries, saved pages and parse health."""

    def __init__(self, searching: Searching, settings: Callable[[], Settings], clock: Clock) -> None:
        self._searching = searching
        self._settings = settings
        self._clock = clock
        # each engine's last attempts in this process, for the console (success, CAPTCHA rate, latency)
        self.recent = RecentAttempts()
        searching.add_attempt_listener(self.recent.note)
        # parse a saved response body with an engine, offline: the search service's own operation, its signature and
        # docs with it (search/service.py: Searching.parse_saved)
        self.parse_saved = searching.parse_saved

    def names(self) -> list[str]:
        """Every web engine name (the registry's, so doors never import engines themselves)."""
        return self._searching.engine_names()

    def breaker_names(self) -> list[str]:
        """Every name with a circuit breaker: web engines, image engines, reverse-image backends (the registry's)."""
        return list(self._searching.providers.specs)

    def statuses(self) -> list[EngineStatus]:
        """Kind, key status and breaker state of every engine: web search's, image search's (vertical "images")
        and reverse image search's backends (vertical "reverse")."""
        from webreach.images.reverse.service import backends_of  # the engine list's: not a search's

        reverse = backends_of(self._settings(), self._clock, self._searching.providers.reverse_backends())
        return self._searching.engine_statuses(reverse=[backend.rules for backend in reverse.values()])

    def built_in(self, name: str) -> dict[str, Any]:
        """What engine `name` uses where no source sets a value: its own origin and pace, the server-wide engine
        timeout, a direct connection (the console shows these instead of "built in")."""
        engine = self._searching.providers.engine_info(name, allow_modes=False, vertical=None)
        settings = self._settings()
        return {
            "enabled": True,
            "base_url": engine.base_url,
            "rate_per_minute": engine.rate_per_minute,
            "timeout": settings.engine_timeout,
            "proxy": None,
        }

    def image_names(self) -> list[str]:
        """Every image engine name (`images_<engine>`): these have a "Test connection" too."""
        return self._searching.image_engine_names()

    def add_attempt_listener(self, listener: Callable[[EngineAttempt], None]) -> None:
        """Tell `listener` of every engine attempt the moment it ends, while the search goes on (CLI -v)."""
        self._searching.add_attempt_listener(listener)

    def auto_order(self, query: str) -> list[str]:
        """The engines auto mode tries for `query`, in order."""
        return self._searching.auto_order(query)

    def reset(self, name: str) -> None:
        """Close engine `name`'s circuit breaker (a web or image engine's, or a reverse-image backend's) and clear
        its stored suspension (InvalidInputError if unknown)."""
        self._searching.reset_breaker(name)

    async def pickups(self) -> list[Pickup]:
        """After reset: whether each running server has picked the reset up (waits 3 s at most)."""
        return await self._searching.pickups()

    async def probe(self, name: str, query: str = CANARY_QUERY) -> CanaryResult:
        """Test engine `name` with one real search through its runtime stack and credentials, leaving its breaker
        as it is and charging no agent (the console's "Test connection")."""
        return await self._searching.probe(name, query)

    async def canary(self, query: str = CANARY_QUERY, engines: Sequence[str] | None = None) -> list[CanaryResult]:
        """Run `query` against each configured engine (or those named), bypassing the cache, and say per engine
        whether its own parser read the answer (ok), only the generic one did, nothing did, or it was blocked."""
        return await self._searching.canary(query, engines)

    def guess(self, body: bytes) -> str:
        """The engine a saved results page most looks like (InvalidInputError when it is none of them)."""
        return self._searching.guess_engine(body)

    def parse_health(self) -> list[ParseHealth]:
        """Each scraped engine's parse health: its last parse mode and how many recent answers needed the generic
        parser (recorded in the state file, so it covers every process sharing it)."""
        return self._searching.parse_health()


class Config:
    """The console's settings: stored in the ledger's database, applied here at once and followed from others."""

    def __init__(self, stored: StoredConfig, engines: Engines, apply: Callable[[Settings], None], clock: Clock) -> None:
        self._stored = stored
        self._engines = engines
        self._apply = apply
        self._clock = clock

    @property
    def stored(self) -> StoredConfig:
        """The console's settings in the database: per-field sources, the version applied, its problem if any."""
        return self._stored

    @staticmethod
    def check(field: str, value: Any, *, label: str | None = None) -> Any:
        """`value` as setting `field` takes it, or InvalidInputError naming the field `label` (a form's words): what
        `change` checks, for a door that checks each field of a form before changing any."""
        return check_value(field, value, label=label)

    def change(self, changes: Mapping[tuple[str, str], Any], *, actor: str = "operator") -> None:
        """Store console settings ((scope, field) -> value, None to remove the console's value) and apply them here
        at once (other servers within CONFIG_POLL). Engine names are checked against the registry. The audit log
        records `actor` (the door) and the fields set and removed, never a value (keys are settings too)."""
        valid = set(self._engines.names())
        for scope, field in changes:
            if scope.startswith("engine:"):
                UnknownEngineError.check(scope[7:], valid)
            order = changes[(scope, field)] if field in ("auto_order", "auto_order_zh") else None
            unknown = sorted(set(order) - valid) if isinstance(order, list) else []  # other shapes: check_value
            if unknown:
                raise InvalidInputError(f"unknown engines in {field}: {', '.join(unknown)}")
        self._apply(self._stored.write(dict(changes), actor=actor))

    async def follow(self) -> None:
        """Apply the settings other processes store, looking at their version every CONFIG_POLL seconds (off the
        event loop), until cancelled."""
        while True:
            await self._clock.sleep(CONFIG_POLL)
            try:
                changed = await asyncio.to_thread(self._stored.poll)
                if changed is not None:
                    self._apply(changed)
            except Exception:  # a bug here must not stop the server following later changes
                logger.exception("console settings: could not apply a change")


class StateBackends:
    """Where this process keeps its shared state, for the readiness check (frontends/_readiness.py): the Redis
    connection the state stores share, and the SQLite state file."""

    def __init__(self, searching: Searching, settings: Callable[[], Settings]) -> None:
        self._searching = searching
        self._settings = settings

    @property
    def redis(self) -> RedisConnection | None:
        """The Redis connection the state stores share ([state] backend "redis"; None otherwise)."""
        return self._searching.redis

    @property
    def state_path(self) -> Path:
        """The machine's SQLite state file ([state] path, else the default)."""
        return self._settings().state.path or default_state_path()
