"""One engine's status as `webreach engines` and GET /v1/admin/engines show it: its kind, key, breaker and
parse health, gathered for every engine of a set (Searching.engine_statuses)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from pydantic import BaseModel, ConfigDict

from webreach.config import EngineSettings
from webreach.engines import EngineInfo, check_configured, pace
from webreach.errors import NotConfiguredError
from webreach.policies import ParseHealth, PolicyState
from webreach.policies.breaker import BreakerView

if TYPE_CHECKING:
    from collections.abc import Sequence

    from webreach.engines import Provider
    from webreach.search.engine_set import EngineSet


class EngineStatus(BaseModel):
    """One engine as `webreach engines` and GET /v1/admin/engines show it.

    The breaker fields: `breaker` closed | open | half_open, `retry_after` seconds of rest left, `failures`
    consecutive failures counted while closed, `suspended_until` epoch seconds the rest ends, `last_error` the
    error code that opened it. Consumers read fields by name: more per-engine fields may be added.
    """

    model_config = ConfigDict(frozen=True)

    name: str
    kind: str
    index: str
    # what it searches: web | images (image search's images_<engine>) | reverse (reverse image search's backends;
    # their supports say how they take the image: url, upload)
    vertical: str = "web"
    shares_settings_of: str | None = None  # images and reverse: the web engine whose settings it uses by default
    supports: tuple[str, ...]
    rate_per_minute: float
    language_hint: str | None
    needs_key: bool
    key_configured: bool
    usable: bool
    reason: str | None
    breaker: str
    retry_after: float | None
    failures: int = 0
    suspended_until: float | None = None
    last_error: str | None = None
    parse_health: ParseHealth | None = None  # scraped engines: which parser read their recent answers


def engine_status(
    engine: EngineInfo | Provider,
    settings: EngineSettings,
    vertical: str,
    health: ParseHealth | None,
    breaker: BreakerView,
) -> EngineStatus:
    """One provider's status listed as `vertical`, from its metadata (an engine's row, or a backend's rules) and
    settings, with its parse health and breaker state: listing engines imports none of them."""
    reason = None
    try:
        check_configured(engine, settings)
    except NotConfiguredError as exc:
        reason = exc.message
    return EngineStatus(
        name=engine.name,
        kind=engine.kind,
        index=engine.index,
        vertical=vertical,
        shares_settings_of=engine.shares_settings_of or None,
        supports=tuple(sorted(engine.supports)),
        rate_per_minute=pace(engine, settings),
        language_hint=engine.language_hint,
        needs_key=engine.needs_key,
        key_configured=settings.api_key is not None,
        usable=reason is None,
        reason=reason,
        breaker=breaker.state,
        retry_after=breaker.retry_after,
        failures=breaker.failures,
        suspended_until=breaker.open_until,
        last_error=breaker.reason,
        parse_health=health,
    )


def parse_health(state: PolicyState, engines: EngineSet) -> list[ParseHealth]:
    """Which parser read each scraped engine's recent answers (from the state file, so every process's)."""
    records = state.parse_health.load_all()
    scraped = [name for name, info in engines.infos.items() if info.kind == "scraped"]
    return [ParseHealth.of(name, records.get(name)) for name in scraped]


def engine_statuses(state: PolicyState, engines: EngineSet, reverse: Sequence[Provider] = ()) -> list[EngineStatus]:
    """Kind, key status, breaker state (other processes' changes taken in first) and parse health of every
    configured engine: web search's, then image search's, then `reverse`, the reverse-image backends."""
    state.sync(force=True)
    health = {view.engine: view for view in parse_health(state, engines)}
    rows = sorted(engines.configured.values(), key=lambda info: info.vertical != "web")  # stable: web first
    listed: list[tuple[EngineInfo | Provider, EngineSettings, str]] = [
        (info, engines.settings[info.name], info.vertical) for info in rows
    ]
    listed += [(backend, backend.settings, "reverse") for backend in reverse]
    view = state.breaker_view
    return [engine_status(e, each, vertical, health.get(e.name), view(e.name)) for e, each, vertical in listed]
