"""Deadline: one engine attempt gets `timeout` seconds, then it is cancelled and becomes EngineTimeoutError.

This is the one policy on real event-loop time: cancelling a pending request needs asyncio's own timer.
"""

from __future__ import annotations

import asyncio

from webreach.errors import EngineTimeoutError
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search


class Deadline:
    """Cancel an attempt that outlives the engine timeout."""

    def __init__(self, inner: Search, *, engine: str, timeout: float) -> None:
        if timeout <= 0:
            raise ValueError("timeout must be positive")
        self.inner = inner
        self.engine = engine
        self.timeout = timeout

    async def __call__(self, request: SearchRequest) -> EngineResult:
        try:
            async with asyncio.timeout(self.timeout):
                return await self.inner(request)
        except TimeoutError:
            raise EngineTimeoutError(f"no answer within {self.timeout:g} s", engine=self.engine) from None
