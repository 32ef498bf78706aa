"""Engine calls that are not text searches (reverse image search) under web search's own policy stack.

A reverse-image backend's request is an image, not a SearchRequest, but its failures are the same typed engine
errors and it deserves the same protection. `GuardedCalls.run` wraps the call in the very classes apply_policies
stacks (circuit breaker -> rate limit -> retry -> deadline), over the same PolicyState: the same breaker records
in the same store (a suspension survives the process and `engines --reset` semantics hold), the same token
buckets. Only the cache is left out (its key is a text query, and an image lookup is keyed by its bytes), and parse
health (no search page is parsed).

The stack is built per call (five small objects) around a closure that hands the call's own result out, so the
policies see a Search as always and nothing in them changed.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TypeVar

from webreach.models import SearchRequest
from webreach.policies import PolicyState, apply_policies, without_cache
from webreach.policies.contract import EngineResult

T = TypeVar("T")
# what the policies are handed: they pass it through and never read it (the cache, which would, is left out)
_NOT_A_TEXT_SEARCH = SearchRequest.create(query="reverse image search")


class GuardedCalls:
    """Run engine calls under breaker, rate limit, retry and deadline, sharing `state` with web search."""

    def __init__(self, state: PolicyState, *, retries: int) -> None:
        self._state = state
        self._retries = retries

    async def run(self, engine: str, call: Callable[[], Awaitable[T]], *, rate_per_minute: float, timeout: float) -> T:
        """`call()`'s result, or the typed error the stack raised (SuspendedError while the breaker rests,
        ThrottledError when the bucket is empty, EngineTimeoutError past `timeout`, the call's own error)."""
        results: list[T] = []

        async def inner(request: SearchRequest) -> EngineResult:
            results.append(await call())
            return EngineResult(hits=())

        stack = apply_policies(
            inner, engine=engine, state=self._state, rate_per_minute=rate_per_minute, timeout=timeout,
            retries=self._retries, cache_ttl=0.0, record_parses=False,
        )  # fmt: skip
        await without_cache(stack)(_NOT_A_TEXT_SEARCH)
        return results[-1]
