"""FakeClock: time that moves only when told to, so policy tests never sleep."""

from __future__ import annotations

import asyncio


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
