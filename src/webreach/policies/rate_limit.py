"""Rate limit: a token bucket per engine, so we never ask an engine faster than it tolerates.

The bucket refills at rate_per_minute and holds a burst of max(1, rate/6) tokens (ten seconds' worth).
A caller who would get a token within max_wait (2 s) reserves it and waits on the clock; a longer wait is
refused at once with SuspendedError(retry_after=wait), so auto mode tries the next engine instead of idling.
Reservations let the bucket go below zero, which queues concurrent waiters fairly, one slot apart.
"""

from __future__ import annotations

import asyncio

from webreach.clock import Clock
from webreach.errors import SuspendedError
from webreach.models import SearchRequest
from webreach.policies.search import EngineResult, Search

DEFAULT_MAX_WAIT = 2.0


class TokenBucket:
    """Tokens refilled continuously; all times are passed in by the caller's clock."""

    def __init__(self, rate_per_minute: float, *, burst: float | None = None) -> None:
        if rate_per_minute <= 0:
            raise ValueError("rate_per_minute must be positive")
        self.rate_per_minute = rate_per_minute
        self.burst = burst if burst is not None else max(1.0, rate_per_minute / 6)
        self._tokens = self.burst
        self._updated: float | None = None  # starts full at the first reservation

    def reserve(self, now: float, max_wait: float) -> tuple[bool, float]:
        """Take a token if one is available within max_wait: (True, wait). Otherwise (False, wait), untouched."""
        self._refill(now)
        wait = 0.0 if self._tokens >= 1 else (1 - self._tokens) * 60 / self.rate_per_minute
        if wait > max_wait:
            return False, wait
        self._tokens -= 1
        return True, wait

    def refund(self) -> None:
        """Give back a reserved token that was never used (the caller was cancelled while waiting)."""
        self._tokens = min(self.burst, self._tokens + 1)

    def _refill(self, now: float) -> None:
        if self._updated is not None and now > self._updated:
            self._tokens = min(self.burst, self._tokens + (now - self._updated) * self.rate_per_minute / 60)
        if self._updated is None or now > self._updated:
            self._updated = now


class RateLimit:
    """Wait briefly for a token, or refuse with SuspendedError so the router moves on."""

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
            raise SuspendedError(
                f"local rate limit ({self.bucket.rate_per_minute:g}/min); next request slot in {wait:.1f} s",
                engine=self.engine,
                retry_after=wait,
            )
        if wait > 0:
            try:
                await self.clock.sleep(wait)
            except asyncio.CancelledError:
                self.bucket.refund()
                raise
        return await self.inner(request)
