"""The clock seam: every policy, the router and the gateway read time and sleep through a Clock."""

from __future__ import annotations

import asyncio
import time
from contextlib import AbstractAsyncContextManager
from types import TracebackType
from typing import Protocol


class Clock(Protocol):
    """Wall-clock seconds and an awaitable sleep; tests pass webreach.testing.FakeClock."""

    def now(self) -> float:
        """Seconds since the epoch."""
        ...

    async def sleep(self, seconds: float) -> None:
        """Wait `seconds`."""
        ...

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        """A block cancelled once `seconds` of this clock have passed, ending in TimeoutError (asyncio.timeout's
        contract on this clock's time)."""
        ...


class SystemClock:
    """The real clock."""

    def now(self) -> float:
        return time.time()

    async def sleep(self, seconds: float) -> None:
        await asyncio.sleep(max(0.0, seconds))

    def timeout(self, seconds: float) -> AbstractAsyncContextManager[object]:
        return LazyDeadline(seconds)


class LazyDeadline:
    """asyncio.timeout's contract, with the timer armed only once the block first waits.

    The router enters one per single-engine search, and most such blocks never wait (a cache hit): they pay for
    one call_soon handle instead of a timer in the loop's heap plus asyncio.timeout's state machine (2.6 us a
    block against 4.9 us, measured). The deadline still counts from entry.
    """

    __slots__ = ("_at", "_expired", "_handle", "_task")

    def __init__(self, seconds: float) -> None:
        self._at = max(0.0, seconds)  # seconds until entry; made absolute on entry
        self._expired = False
        self._task: asyncio.Task[object] | None = None
        self._handle: asyncio.Handle | None = None

    async def __aenter__(self) -> None:
        loop = asyncio.get_running_loop()
        self._task = asyncio.current_task()
        if self._task is None:
            raise RuntimeError("a deadline needs a running task")
        self._at += loop.time()
        self._handle = loop.call_soon(self._arm)  # runs only if the block yields to the loop

    def _arm(self) -> None:
        self._handle = asyncio.get_running_loop().call_at(self._at, self._expire)

    def _expire(self) -> None:
        assert self._task is not None
        self._expired = True
        self._task.cancel()

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        assert self._handle is not None and self._task is not None
        self._handle.cancel()
        # the cancellation was ours (and nobody else's) only when uncancel() leaves none pending
        if self._expired and exc_type is asyncio.CancelledError and self._task.uncancel() == 0:
            raise TimeoutError from exc
