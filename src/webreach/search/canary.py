"""The canary: one fixed query against each engine, telling whether its parser still reads its pages.

Each engine is asked through its policy stack without the cache (a cached answer says nothing about today's
markup), so a suspended engine is reported as such instead of being hammered. Outcomes:
  ok           the engine's own parser read the answer
  generic      only the generic fallback found results: the engine's markup changed, its parser needs attention
  parse_error  nothing could read the page
  blocked      a CAPTCHA or block page (codes captcha, blocked)
  error        anything else (rate_limited, timeout, unavailable, suspended, not_configured ...), with its code
Engines are asked concurrently: each is a different site, and each still keeps its own rate limit: an engine our
own pacing skips (throttled) is asked again once its slot comes, when that is at most MAX_THROTTLE_WAIT seconds
away, because a canary that reports "error" for our own pacing says nothing about the engine.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from webreach.clock import Clock
from webreach.defaults import CANARY_QUERY as CANARY_QUERY
from webreach.errors import BlockedError, EngineError, NotConfiguredError, ParseError, ThrottledError, WebreachError
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search

MAX_THROTTLE_WAIT = 15.0
CanaryStatus = Literal["ok", "generic", "parse_error", "blocked", "error"]


class CanaryResult(BaseModel):
    """How one engine answered the canary query."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    engine: str
    status: CanaryStatus
    hits: int = 0
    code: str | None = Field(None, description="The error code when the engine did not answer with results.")
    message: str | None = None
    hint: str | None = Field(None, description="What to do about the error, as the error itself says.")
    latency_ms: float = 0.0
    # the error itself, for a door that words it its own way (the console); never serialized
    error: WebreachError | None = Field(None, exclude=True, repr=False)


async def run_canary(
    searches: Mapping[str, Search], names: Sequence[str], request: SearchRequest, clock: Clock
) -> list[CanaryResult]:
    """Ask every engine in `names` (with its uncached stack from `searches`), in that order."""
    return list(await asyncio.gather(*(_ask(name, searches[name], request, clock) for name in names)))


async def _ask(name: str, search: Search, request: SearchRequest, clock: Clock) -> CanaryResult:
    started = clock.now()

    def ended(status: CanaryStatus, **fields: object) -> CanaryResult:
        latency = round(max(0.0, clock.now() - started) * 1000.0, 3)
        return CanaryResult.model_validate({"engine": name, "status": status, "latency_ms": latency, **fields})

    try:
        result = await _paced(search, request, clock)
    except ParseError as error:
        return ended("parse_error", code=error.code, message=str(error), hint=error.hint or None, error=error)
    except BlockedError as error:
        return ended("blocked", code=error.code, message=str(error), hint=error.hint or None, error=error)
    except (EngineError, NotConfiguredError) as error:
        return ended("error", code=error.code, message=str(error), hint=error.hint or None, error=error)
    status: CanaryStatus = "generic" if result.parsed_by == "generic" else "ok"
    return ended(status, hits=len(result.hits))


async def _paced(search: Search, request: SearchRequest, clock: Clock) -> EngineResult:
    """search(request), asked once more when our own rate limit skipped it and its slot is near."""
    try:
        return await search(request)
    except ThrottledError as throttled:
        wait = throttled.retry_after
        if wait is None or wait > MAX_THROTTLE_WAIT:
            raise
        await clock.sleep(wait)
        return await search(request)
