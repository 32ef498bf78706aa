"""A third-party reader's pace in this process: at most `rate_per_minute` requests (the Jina reader's free tier is
20 a minute without a key, 200 with one), as a token bucket holding ten seconds' worth (at least one), like the
engines' (policies/rate_limit.py). A slot free within `max_wait` is waited for; a later one is refused at once with
ThrottledError (code throttled, retry_after: the wait), which reader='auto' takes as "not available now" and moves
on to the next reader, so a paced-out Jina never stalls a read.
"""

from __future__ import annotations

import asyncio

from webreach.errors import Arg, ThrottledError, hint

DEFAULT_MAX_WAIT = 2.0


class ReaderPace:
    """Paces one reader's requests; the level is this object's (one process)."""

    def __init__(self, name: str, rate_per_minute: float, *, max_wait: float = DEFAULT_MAX_WAIT) -> None:
        if rate_per_minute <= 0:
            raise ValueError("rate_per_minute must be positive")
        self.name = name
        self.rate_per_minute = rate_per_minute
        self.burst = max(1.0, rate_per_minute / 6)
        self.max_wait = max_wait
        self._tokens = self.burst
        self._at: float | None = None  # the loop time the level was last brought up to date

    async def take(self) -> None:
        """Wait for a slot (at most max_wait), else ThrottledError with the wait as retry_after."""
        now = asyncio.get_running_loop().time()
        elapsed = 0.0 if self._at is None else max(0.0, now - self._at)
        tokens = min(self.burst, self._tokens + elapsed * self.rate_per_minute / 60)
        wait = 0.0 if tokens >= 1 else (1 - tokens) * 60 / self.rate_per_minute
        if wait > self.max_wait:
            raise ThrottledError(
                f"the {self.name} reader is paced at {self.rate_per_minute:g} requests/min here; the next slot is "
                f"in {wait:.1f} s",
                engine=self.name,
                retry_after=wait,
                hint=hint("Wait retry_after seconds, or read with {}.", Arg("reader", "direct")),
            )
        self._tokens, self._at = tokens - 1, now  # reserved (below zero while waiting: later callers queue behind)
        if wait > 0:
            try:
                await asyncio.sleep(wait)
            except asyncio.CancelledError:
                self._tokens += 1  # not used: the slot goes to the next caller
                raise
