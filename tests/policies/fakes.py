"""Fakes for policy tests: a scripted Search that counts its calls, and random sources pinned to a bound."""

from __future__ import annotations

import asyncio
import random

from webreach.models import Hit, SearchRequest
from webreach.policies import EngineResult
from webreach.testing.clock import FakeClock

Outcome = tuple[Hit, ...] | BaseException


def make_hits(count: int = 2, engine: str = "mojeek") -> tuple[Hit, ...]:
    return tuple(
        Hit(rank=i, title=f"Result {i}", url=f"https://example.org/{i}", snippet="…", engine=engine)
        for i in range(1, count + 1)
    )


class ScriptedSearch:
    """Plays `outcomes` in order, the last one repeating: hits to answer with, or an exception to raise.

    `takes` advances the fake clock per call (a slow engine); `gate`, when given, is awaited before answering;
    `hang_first` makes the first call wait forever (for deadline tests).
    """

    def __init__(
        self,
        *outcomes: Outcome,
        clock: FakeClock | None = None,
        takes: float = 0.0,
        gate: asyncio.Event | None = None,
        hang_first: bool = False,
    ) -> None:
        self.outcomes = list(outcomes) or [make_hits()]
        self.clock = clock
        self.takes = takes
        self.gate = gate
        self.hang_first = hang_first
        self.calls = 0
        self.cancelled = 0
        self.requests: list[SearchRequest] = []

    async def __call__(self, request: SearchRequest) -> EngineResult:
        outcome = self.outcomes[min(self.calls, len(self.outcomes) - 1)]
        self.calls += 1
        self.requests.append(request)
        if self.clock is not None:
            self.clock.advance(self.takes)
        try:
            if self.hang_first and self.calls == 1:
                await asyncio.Event().wait()
            if self.gate is not None:
                await self.gate.wait()
        except asyncio.CancelledError:
            self.cancelled += 1
            raise
        if isinstance(outcome, BaseException):
            raise outcome
        return EngineResult(hits=outcome)


class MaxRandom(random.Random):
    """Always draws the upper bound: the longest backoff full jitter can choose."""

    def uniform(self, a: float, b: float) -> float:
        return b


class MinRandom(random.Random):
    """Always draws the lower bound: retries without waiting."""

    def uniform(self, a: float, b: float) -> float:
        return a
