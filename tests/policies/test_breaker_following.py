"""A following server and a process waiting for it: follow() applies other processes' changes while idle and
records the generation it applied; pickups() reports per running server whether it has taken a change in.

Two PolicyStates on one SQLite file stand for two processes; the "server" registers under this test's own pid
(the registry only lists live processes) and the "CLI" looks for servers other than a made-up pid.
"""

from __future__ import annotations

import asyncio
import os
from contextlib import closing
from pathlib import Path

from webreach.errors import BlockedError
from webreach.models import SearchRequest
from webreach.policies import PICKUP_WAIT, PolicyState
from webreach.state.breaker_followers import BreakerFollowers, Pickup
from webreach.state.breaker_store import SqliteBreakerStore
from webreach.testing.clock import FakeClock

from .breakers import fail, guarded
from .fakes import ScriptedSearch

CAPTCHA = BlockedError("captcha page", kind="captcha", engine="duckduckgo")
NOT_A_SERVER = -1  # the CLI's pid in these tests: every registered server is "another process"


def process(clock: FakeClock, path: Path) -> PolicyState:
    return PolicyState(clock=clock, breaker_store=SqliteBreakerStore(path), followers=BreakerFollowers(path))


async def test_with_no_server_running_nobody_is_waited_for(clock: FakeClock, state_file: Path) -> None:
    cli = process(clock, state_file)
    cli.reset_breaker("duckduckgo")
    start = clock.now()
    assert await cli.pickups() == []
    assert clock.now() == start  # no wait at all
    cli.close()


async def test_an_idle_following_server_picks_a_reset_up(
    clock: FakeClock, search_request: SearchRequest, state_file: Path
) -> None:
    server = process(clock, state_file)
    await fail(guarded(server, ScriptedSearch(CAPTCHA)), search_request, BlockedError)
    cli = process(clock, state_file)
    async with server.follow("serve"):
        cli.reset_breaker("duckduckgo")
        with closing(BreakerFollowers(state_file)) as registry:
            running = registry.running(besides=NOT_A_SERVER)
        assert [(f.pid, f.door) for f in running] == [(os.getpid(), "serve")]
        assert running[0].generation < cli.breaker_store.generation
        for _ in range(3):  # the follower's loop runs on the clock's sleeps (SYNC_INTERVAL each); no search
            await asyncio.sleep(0)
        assert server.breaker_view("duckduckgo").state == "closed"
        with closing(BreakerFollowers(state_file)) as registry:
            (follower,) = registry.running(besides=NOT_A_SERVER)
        assert follower.generation == cli.breaker_store.generation
    with closing(BreakerFollowers(state_file)) as registry:
        assert registry.running(besides=NOT_A_SERVER) == []  # unregistered when it stops
    server.close()
    cli.close()


async def test_a_server_that_does_not_catch_up_is_reported_after_the_wait(clock: FakeClock, state_file: Path) -> None:
    with closing(BreakerFollowers(state_file)) as registry:
        registry.register(os.getppid(), "mcp", 0, clock.now())  # a live process registered, never following
    cli = process(clock, state_file)
    cli.reset_breaker("duckduckgo")
    start = clock.now()
    pickups = await cli.pickups()
    assert clock.now() - start >= PICKUP_WAIT
    assert pickups == [Pickup(os.getppid(), "mcp", False)]
    cli.close()
