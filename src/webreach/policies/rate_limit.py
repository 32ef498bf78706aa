"""Rate limit: a token bucket per engine, so we never ask an engine faster than it tolerates.

The bucket refills at rate_per_minute and holds a burst of max(1, rate/6) tokens (ten seconds' worth).
A caller who would get a token within max_wait (2 s) reserves it and waits on the clock; a longer wait is
refused at once with ThrottledError(retry_after=wait), so auto mode tries the next engine instead of idling.
A search that never reached the engine because this machine's network failed (UnreachableError: no DNS, no
route, refused) gives its token back: the engine was not asked, so it cost the engine nothing.
Reservations let the bucket go below zero, which queues concurrent waiters fairly, one slot apart.

The level lives in a BucketStore (state/bucket_store.py): in memory by default, in the state file when
[state] backend is "sqlite", so every process of the user (CLI runs, a server) draws from one bucket per
engine. Each reservation is one atomic read-refill-take-write of the stored level: processes never both spend
a token, and waiters in different processes queue one slot apart too. Processes configured with different
rates for one engine share the level and each refills it at its own rate. The wall clock may step back
(NTP, a suspended laptop): refill never goes negative and the level's time moves back with it, so a stored
timestamp from the future cannot stall an engine.
"""

from __future__ import annotations

import asyncio

from webreach.clock import Clock
from webreach.errors import ThrottledError, UnreachableError
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search
from webreach.state.bucket_store import BucketStore, MemoryBucketStore, Pace

DEFAULT_MAX_WAIT = 2.0


class TokenBucket:
    """One engine's pace; all times are passed in by the caller's clock, the level kept in `store`."""

    def __init__(
        self,
        rate_per_minute: float,
        *,
        burst: float | None = None,
        engine: str = "",
        store: BucketStore | None = None,
    ) -> None:
        if rate_per_minute <= 0:
            raise ValueError("rate_per_minute must be positive")
        self.rate_per_minute = rate_per_minute
        self.burst = burst if burst is not None else max(1.0, rate_per_minute / 6)
        self.engine = engine
        self.pace = Pace(rate_per_minute, self.burst)
        self._store: BucketStore = store if store is not None else MemoryBucketStore()

    async def reserve(self, now: float, max_wait: float) -> tuple[bool, float]:
        """Take a token if one is available within max_wait: (True, wait). Otherwise (False, wait), untouched."""
        return await self._store.reserve(self.engine, self.pace, now=now, max_wait=max_wait)

    async def refund(self) -> None:
        """Give back a reserved token that was never used (the caller was cancelled while waiting)."""
        await self._store.refund(self.engine, self.pace)


class RateLimit:
    """Wait briefly for a token, or refuse with ThrottledError so the router moves on."""

    def __init__(
        self,
        inner: Search,
        *,
        engine: str,
        bucket: TokenBucket,
        clock: Clock,
        max_wait: float = DEFAULT_MAX_WAIT,
    ) -> None:
        self.inner = inner
        self.engine = engine
        self.bucket = bucket
        self.clock = clock
        self.max_wait = max_wait

    async def __call__(self, request: SearchRequest) -> EngineResult:
        granted, wait = await self.bucket.reserve(self.clock.now(), self.max_wait)
        if not granted:
            raise ThrottledError(
                f"skipped by webreach's own pacing of this engine ({self.bucket.rate_per_minute:g} requests/min);"
                f" the next request slot is in {wait:.1f} s",
                engine=self.engine,
                retry_after=wait,
            )
        if wait > 0:
            try:
                await self.clock.sleep(wait)
            except asyncio.CancelledError:
                await asyncio.shield(self.bucket.refund())  # the token goes back even if cancelled again
                raise
        try:
            return await self.inner(request)
        except UnreachableError:
            await self.bucket.refund()  # the engine was never reached
            raise
