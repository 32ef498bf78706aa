"""Clock.timeout on both clocks: asyncio.timeout's contract (TimeoutError when it expires, other cancellations
left alone, nothing left armed after the block)."""

from __future__ import annotations

import asyncio

import pytest

from webreach.clock import SystemClock
from webreach.testing import FakeClock


@pytest.mark.parametrize("clock", [SystemClock(), FakeClock()], ids=["system", "fake"])
async def test_a_block_past_its_time_ends_in_timeout_error(clock: SystemClock | FakeClock) -> None:
    with pytest.raises(TimeoutError):
        async with clock.timeout(0.01):
            await asyncio.Event().wait()


@pytest.mark.parametrize("clock", [SystemClock(), FakeClock()], ids=["system", "fake"])
async def test_a_block_that_finishes_leaves_nothing_armed(clock: SystemClock | FakeClock) -> None:
    async with clock.timeout(0.01):
        pass
    async with clock.timeout(0.01):
        await asyncio.sleep(0)  # waits once, so the lazy timer is armed, then finishes
    await asyncio.sleep(0.05)  # past both deadlines: a stray timer would cancel this task here
    assert asyncio.current_task() is not None and not asyncio.current_task().cancelling()  # type: ignore[union-attr]


async def test_someone_elses_cancellation_is_not_a_timeout() -> None:
    started = asyncio.Event()

    async def block() -> None:
        async with SystemClock().timeout(60):
            started.set()
            await asyncio.Event().wait()

    task = asyncio.create_task(block())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
