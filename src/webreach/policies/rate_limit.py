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
from webreach.state.bucket_store import BucketLevel, BucketStore, MemoryBucketStore

DEFAULT_MAX_WAIT = 2.0


class TokenBucket:
    """Tokens refilled continuously; all times are passed in by the caller's clock, the level kept in `store`."""

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
        self._store: BucketStore = store if store is not None else MemoryBucketStore()

    def reserve(self, now: float, max_wait: float) -> tuple[bool, float]:
        """Take a token if one is available within max_wait: (True, wait). Otherwise (False, wait), untouched."""

        def take(stored: BucketLevel | None) -> tuple[BucketLevel | None, tuple[bool, float]]:
            tokens = self._refilled(stored, now)
            wait = 0.0 if tokens >= 1 else (1 - tokens) * 60 / self.rate_per_minute
            if wait > max_wait:
                # the same level, restamped: a stamp from the future (the clock stepped back) is corrected
                return BucketLevel(tokens, now), (False, wait)
            return BucketLevel(tokens - 1, now), (True, wait)

        return self._store.update(self.engine, take)

    def refund(self) -> None:
        """Give back a reserved token that was never used (the caller was cancelled while waiting)."""

        def give_back(stored: BucketLevel | None) -> tuple[BucketLevel | None, None]:
            if stored is None:
                return None, None  # nothing was taken from this store (it was cleared meanwhile)
            return BucketLevel(min(self.burst, stored.tokens + 1), stored.updated), None

        self._store.update(self.engine, give_back)

    def _refilled(self, stored: BucketLevel | None, now: float) -> float:
        """Tokens at `now`: a bucket never used starts full; a level saved under a larger burst is capped."""
        if stored is None:
            return self.burst
        elapsed = max(0.0, now - stored.updated)
        return min(self.burst, stored.tokens + elapsed * self.rate_per_minute / 60)


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
        granted, wait = self.bucket.reserve(self.clock.now(), self.max_wait)
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
                self.bucket.refund()
                raise
        try:
            return await self.inner(request)
        except UnreachableError:
            self.bucket.refund()  # the engine was never reached
            raise
