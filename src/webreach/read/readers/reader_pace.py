"""A third-party reader's pace: at most `rate_per_minute` requests (the Jina reader's free tier is 20 a minute without
a key, 200 with one), as the engines' token bucket (policies/rate_limit.py: TokenBucket, ten seconds' worth of
burst) kept in the same BucketStore, under the key `reader:<name>`. With [state] backend "sqlite" or "redis" that
store is shared, so every process and replica draws from one bucket: three replicas of a keyless server stay at
Jina's 20 a minute together, not 60. A slot free within `max_wait` is waited for; a later one is refused at once
with ThrottledError (code throttled, retry_after: the wait), which reader='auto' takes as "not available now" and
moves on to the next reader, so a paced-out Jina never stalls a read.
"""

from __future__ import annotations

import asyncio

from webreach.clock import Clock, SystemClock
from webreach.errors import Arg, ThrottledError, hint
from webreach.policies.rate_limit import TokenBucket
from webreach.state.bucket_store import BucketStore

DEFAULT_MAX_WAIT = 2.0


class ReaderPace:
    """Paces one reader's requests; the level is the store's (this process's own when none is given)."""

    def __init__(
        self,
        name: str,
        rate_per_minute: float,
        *,
        store: BucketStore | None = None,
        clock: Clock | None = None,
        max_wait: float = DEFAULT_MAX_WAIT,
    ) -> None:
        self.name = name
        self.bucket = TokenBucket(rate_per_minute, engine=f"reader:{name}", store=store)
        self.clock: Clock = clock or SystemClock()
        self.max_wait = max_wait

    @property
    def rate_per_minute(self) -> float:
        return self.bucket.rate_per_minute

    async def take(self) -> None:
        """Wait for a slot (at most max_wait), else ThrottledError with the wait as retry_after."""
        granted, wait = await self.bucket.reserve(self.clock.now(), self.max_wait)
        if not granted:
            raise ThrottledError(
                f"the {self.name} reader is paced at {self.rate_per_minute:g} requests/min here; the next slot is "
                f"in {wait:.1f} s",
                engine=self.name,
                retry_after=wait,
                hint=hint("Wait retry_after seconds, or read with {}.", Arg("reader", "direct")),
            )
        if wait > 0:
            try:
                await self.clock.sleep(wait)
            except asyncio.CancelledError:
                await asyncio.shield(self.bucket.refund())  # not used: the slot goes to the next caller
                raise
