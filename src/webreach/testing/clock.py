"""FakeClock: time that moves only when told to, so policy tests never sleep."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator


class FakeClock:
    """A Clock whose sleep advances time instantly (and yields once so other tasks run)."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.current = start
        self.slept: list[float] = []

    def now(self) -> float:
        return self.current

    def advance(self, seconds: float) -> None:
        """Move time forward."""
        self.current += seconds

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.current += max(0.0, seconds)
        await asyncio.sleep(0)

    @contextlib.asynccontextmanager
    async def timeout(self, seconds: float) -> AsyncIterator[None]:
        """Cancel the block with TimeoutError once a timer sleeping `seconds` on this clock wakes (at once, as
        every sleep here does, unless the block finished first)."""
        body = asyncio.current_task()
        assert body is not None, "timeout() needs a running task"
        expired = False

        async def expire() -> None:
            nonlocal expired
            await self.sleep(seconds)
            expired = True
            body.cancel()

        timer = asyncio.create_task(expire(), name="fake-clock-timeout")
        try:
            yield
        except asyncio.CancelledError:
            if expired and body.uncancel() == 0:
                raise TimeoutError from None
            raise
        finally:
            timer.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await timer
