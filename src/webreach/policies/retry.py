"""Retry: try a failed engine call again when the error says that may help, jittered and inside a budget.

Only errors with retryable=True are retried (timeouts, unavailable, and rate limits that ask for at most
2 s), except UnreachableError: this machine's network does not come back within one search. Delays are
"full jitter" exponential backoff: uniform(0, min(2 s, 0.2 s * 2**n)), at least the error's retry_after, drawn from
an injected random.Random so tests are deterministic. When the next delay would end
past the budget (the engine timeout, counted from the first attempt), the error is raised instead.
"""

from __future__ import annotations

import logging
import random

from webreach.clock import Clock
from webreach.errors import EngineError, RateLimitedError, UnreachableError
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search

logger = logging.getLogger(__name__)

BASE_DELAY = 0.2
MAX_DELAY = 2.0
MAX_RATE_LIMIT_WAIT = 2.0


def is_retryable(exc: EngineError) -> bool:
    """Whether trying again soon may succeed; a long Retry-After belongs to the breaker, not to us."""
    if not exc.retryable or isinstance(exc, UnreachableError):
        # this machine's network failing (no DNS, no route) does not heal within one search: move on at once
        return False
    if isinstance(exc, RateLimitedError):
        return exc.retry_after is not None and exc.retry_after <= MAX_RATE_LIMIT_WAIT
    return True


class Retry:
    """At most `retries` extra attempts of retryable errors, each after a jittered backoff."""

    def __init__(
        self,
        inner: Search,
        *,
        engine: str,
        retries: int,
        budget: float,
        clock: Clock,
        rng: random.Random,
        base: float = BASE_DELAY,
        cap: float = MAX_DELAY,
    ) -> None:
        self.inner = inner
        self.engine = engine
        self.retries = retries
        self.budget = budget
        self.clock = clock
        self.rng = rng
        self.base = base
        self.cap = cap

    async def __call__(self, request: SearchRequest) -> EngineResult:
        started = self.clock.now()
        attempt = 0
        while True:
            try:
                return await self.inner(request)
            except EngineError as exc:
                delay = self._next_delay(exc, attempt, started)
                if delay is None:
                    raise
                logger.debug("%s: %s, retry %d in %.2f s", self.engine, exc.code, attempt + 1, delay)
            await self.clock.sleep(delay)
            attempt += 1

    def _next_delay(self, exc: EngineError, attempt: int, started: float) -> float | None:
        """Seconds to wait before the next attempt, or None to give up."""
        if attempt >= self.retries or not is_retryable(exc):
            return None
        delay = self.rng.uniform(0.0, min(self.cap, self.base * 2**attempt))
        if exc.retry_after is not None:
            delay = max(delay, exc.retry_after)
        if self.clock.now() - started + delay > self.budget:
            return None
        return delay
