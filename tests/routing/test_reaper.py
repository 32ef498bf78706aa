"""Cancelled engine calls unwind after the answer, in the Reaper's keeping: never awaited by the caller, never
leaked (referenced until they end, drained bounded on close)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

import pytest

from webreach.models import SearchRequest
from webreach.policies import EngineResult
from webreach.routing import Candidate, Router
from webreach.routing.reaper import Reaper
from webreach.testing.clock import FakeClock

from .fakes import candidate

REQUEST = SearchRequest(query="python asyncio", limit=2)
BOUND = 10.0


class SlowToUnwind:
    """A search that hangs, and once cancelled takes until `release` to unwind (a connection slow to close)."""

    def __init__(self) -> None:
        self.release = asyncio.Event()
        self.unwound = False

    async def __call__(self, request: SearchRequest) -> EngineResult:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            await self.release.wait()
            self.unwound = True
            raise
        raise AssertionError("never answers")


def engine_tasks(name: str) -> list[asyncio.Task[object]]:
    return [task for task in asyncio.all_tasks() if task.get_name() == f"webreach-search-{name}"]


async def settle(task: asyncio.Task[Any]) -> None:
    """Wait for `task` to finish, giving up after BOUND seconds (it never needs them: the fake clock's timers
    fire at once; before the fix the task waited for the loser forever)."""
    await asyncio.wait({task}, timeout=BOUND)


async def test_the_answer_does_not_wait_for_the_hedged_loser_to_unwind() -> None:
    """Before: auto awaited the loser's cancellation, so a slow clean-up delayed (here: blocked) the answer."""
    unwinding = SlowToUnwind()
    slow = Candidate(name="duckduckgo", index="duckduckgo", search=unwinding)
    fast, _ = candidate("mojeek", ["https://m.example/"])
    routing = Router(clock=FakeClock(), hedge_delay=1.0, deadline=30.0)

    search = asyncio.create_task(routing.auto([slow, fast], REQUEST))
    await settle(search)

    assert search.done(), "the answer waited for the loser's clean-up"
    response = search.result()
    assert response.meta.engines_used == ("mojeek",)
    assert [(a.engine, a.status) for a in response.meta.attempts] == [("duckduckgo", "cancelled"), ("mojeek", "ok")]
    [loser] = engine_tasks("duckduckgo")
    assert not loser.done() and routing.unwinding == 1  # still unwinding, and held by the router
    unwinding.release.set()
    await settle(loser)
    await routing.aclose()
    assert loser.cancelled() and unwinding.unwound
    assert routing.unwinding == 0 and not engine_tasks("duckduckgo")


async def test_a_deadline_cut_off_does_not_wait_for_the_call_to_unwind() -> None:
    unwinding = SlowToUnwind()
    slow = Candidate(name="google", index="google", search=unwinding)
    fast, _ = candidate("mojeek", ["https://m.example/"])
    routing = Router(clock=FakeClock(), hedge_delay=1.0, deadline=5.0)

    search = asyncio.create_task(routing.multi([slow, fast], REQUEST))
    await settle(search)

    assert search.done()
    assert [(a.engine, a.code) for a in search.result().meta.attempts] == [("google", "timeout"), ("mojeek", None)]
    [cut_off] = engine_tasks("google")
    unwinding.release.set()
    await settle(cut_off)
    await routing.aclose()
    assert unwinding.unwound and routing.unwinding == 0


async def test_drain_gives_up_on_a_call_that_never_ends_and_says_so(caplog: pytest.LogCaptureFixture) -> None:
    stop = asyncio.Event()

    async def stubborn() -> None:
        while not stop.is_set():
            try:
                await stop.wait()
            except asyncio.CancelledError:
                continue  # swallows every cancellation

    reaper = Reaper()
    task = asyncio.create_task(stubborn())
    await asyncio.sleep(0)
    reaper.take([task])
    with caplog.at_level(logging.WARNING, logger="webreach.routing"):
        await reaper.drain(timeout=0.05)
    assert "1 cancelled engine call(s) still unwinding" in caplog.text
    assert len(reaper) == 1  # still referenced, so still reaped when it does end
    stop.set()
    await task
    assert len(reaper) == 0


async def test_a_call_failing_while_cancelled_is_logged_by_type_only(caplog: pytest.LogCaptureFixture) -> None:
    async def fails_on_cancel() -> None:
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            raise RuntimeError("https://api.example/?api_key=SECRET123") from None

    reaper = Reaper()
    task = asyncio.create_task(fails_on_cancel())
    await asyncio.sleep(0)
    with caplog.at_level(logging.WARNING, logger="webreach.routing"):
        reaper.take([task])
        await reaper.drain()
    assert "raised RuntimeError while being cancelled" in caplog.text
    assert "SECRET123" not in caplog.text
    assert len(reaper) == 0
