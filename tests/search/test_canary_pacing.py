"""The canary waits out our own pacing once (a throttled engine is asked again when its slot is near)."""

from __future__ import annotations

import asyncio

from webreach.errors import ThrottledError
from webreach.models import Hit, SearchRequest
from webreach.policies.contract import EngineResult
from webreach.search.canary import MAX_THROTTLE_WAIT, run_canary
from webreach.testing import FakeClock

REQUEST = SearchRequest.create(query="python programming language")
HIT = Hit(rank=1, title="Python", url="https://www.python.org/", engine="mojeek")


class PacedSearch:
    """Throttled for the first `refusals` calls, `wait` seconds each, then a result."""

    def __init__(self, clock: FakeClock, *, refusals: int, wait: float) -> None:
        self.clock, self.refusals, self.wait = clock, refusals, wait
        self.asked_at: list[float] = []

    async def __call__(self, request: SearchRequest) -> EngineResult:
        self.asked_at.append(self.clock.now())
        if len(self.asked_at) <= self.refusals:
            raise ThrottledError("skipped by its rate limit", engine="mojeek", retry_after=self.wait)
        return EngineResult((HIT,), parsed_by="engine")


def canary(search: PacedSearch, clock: FakeClock) -> tuple[str, str | None]:
    (result,) = asyncio.run(run_canary({"mojeek": search}, ["mojeek"], REQUEST, clock))
    return result.status, result.code


def test_a_throttled_engine_is_asked_again_once_its_slot_comes() -> None:
    clock = FakeClock()
    search = PacedSearch(clock, refusals=1, wait=3.0)
    assert canary(search, clock) == ("ok", None)
    assert search.asked_at[1] - search.asked_at[0] == 3.0


def test_a_far_slot_or_a_second_refusal_is_reported() -> None:
    clock = FakeClock()
    assert canary(PacedSearch(clock, refusals=1, wait=MAX_THROTTLE_WAIT + 1), clock) == ("error", "throttled")
    twice = PacedSearch(clock, refusals=2, wait=1.0)
    assert canary(twice, clock) == ("error", "throttled")
    assert len(twice.asked_at) == 2
