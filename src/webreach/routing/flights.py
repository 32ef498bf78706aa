"""Engine calls in the air: start them, wait for the next one to land or a timer to fire, cancel the rest.

The router decides what to start and when; this class only keeps the books, so every call started ends up
as exactly one Outcome, kept in start order for meta. Stopping calls, and leaving the `async with` block
(also when the router itself is cancelled or a call raised a bug), cancels whatever is still running and
hands it to the router's Reaper without waiting for it to unwind: the answer is not held up by a loser's
clean-up, and the reaper keeps each task until it ends, so none is leaked.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from types import TracebackType
from typing import Any

from webreach.clock import Clock
from webreach.models import SearchRequest
from webreach.routing.attempts import Candidate, Outcome, call_engine, cancelled_outcome, reported
from webreach.routing.reaper import Reaper

TIMER_GRAIN = 0.001  # the event loop's timer resolution on Linux (epoll waits whole milliseconds)


@dataclass(frozen=True)
class _Flight:
    candidate: Candidate
    started: float
    hedged: bool
    slot: int


class Flights:
    """Running engine calls for one search, plus at most one armed timer (hedge delay or deadline)."""

    def __init__(self, clock: Clock, request: SearchRequest, reaper: Reaper) -> None:
        self._clock = clock
        self._request = request
        self._reaper = reaper
        self._running: dict[asyncio.Task[Outcome], _Flight] = {}
        self._slots: list[Outcome | None] = []
        self._timer: asyncio.Task[None] | None = None

    async def __aenter__(self) -> Flights:
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        leftovers: list[asyncio.Task[Any]] = list(self._running)
        if self._timer is not None:
            leftovers.append(self._timer)
        self._running.clear()
        self._timer = None
        self._reaper.take(leftovers)

    @property
    def busy(self) -> bool:
        """True while any engine call is running."""
        return bool(self._running)

    @property
    def armed(self) -> bool:
        return self._timer is not None

    @property
    def outcomes(self) -> list[Outcome]:
        """Every call that has ended, in the order the calls started."""
        return [outcome for outcome in self._slots if outcome is not None]

    def start(self, candidate: Candidate, *, hedged: bool) -> None:
        """Start asking `candidate`; `hedged` marks a start while another engine is still running."""
        flight = _Flight(candidate, self._clock.now(), hedged, len(self._slots))
        self._slots.append(None)
        call = call_engine(candidate, self._request, self._clock, hedged=hedged)
        self._running[asyncio.create_task(call, name=f"webreach-search-{candidate.name}")] = flight

    def arm(self, delay: float) -> None:
        """(Re)start the timer: wait() reports it fired once `delay` seconds of the clock have passed."""
        self.disarm()
        due = self._clock.now() + delay
        self._timer = asyncio.create_task(self._sleep_until(due), name="webreach-search-timer")

    async def _sleep_until(self, due: float) -> None:
        # the time counts from arm(), not from when this task first runs: a call started just before runs its
        # synchronous first steps (an engine's HTTP client built on first use) before this task does, 2-5 ms
        # that made every hedge late by as much (bench/gateway.py: hedged auto 4 ms over its budget)
        left = due - self._clock.now()
        if left > TIMER_GRAIN:
            await self._clock.sleep(left - TIMER_GRAIN)
            left = due - self._clock.now()
        # the loop's timers wake on whole milliseconds rounded up (epoll), so sleeping the last stretch fires up
        # to 1 ms late: it is spent yielding to the loop instead (other tasks run meanwhile; idle, it costs at
        # most TIMER_GRAIN of CPU per armed timer that actually runs out, i.e. per hedge or deadline)
        loop = asyncio.get_running_loop()
        end = loop.time() + left
        while loop.time() < end:
            await asyncio.sleep(0)
        if due - self._clock.now() > TIMER_GRAIN / 2:  # a clock that is not the loop's (tests' FakeClock)
            await self._clock.sleep(due - self._clock.now())

    def disarm(self) -> None:
        if self._timer is not None:
            self._reaper.take([self._timer])
            self._timer = None

    async def wait(self) -> tuple[list[Outcome], bool]:
        """Wait until a call ends or the timer fires: the calls that ended (start order), and whether it fired."""
        pending: set[asyncio.Task[Any]] = set(self._running)
        if self._timer is not None:
            pending.add(self._timer)
        await asyncio.wait(pending, return_when=asyncio.FIRST_COMPLETED)
        landed = []
        for task, flight in list(self._running.items()):
            if task.done():
                del self._running[task]
                # result() re-raises anything call_engine let through (a bug): __aexit__ cleans up the rest
                self._slots[flight.slot] = outcome = task.result()
                landed.append(outcome)
        fired = self._timer is not None and self._timer.done()
        if fired:
            self._timer = None
        return landed, fired

    def stop(self, *, deadline: float | None = None) -> None:
        """Cancel every running call: hedged losers when `deadline` is None, else cut off by that deadline.

        Returns at once: the calls unwind in the reaper's keeping, their outcomes already recorded here."""
        now = self._clock.now()
        tasks = list(self._running)
        for flight in self._running.values():
            latency_ms = round(max(0.0, now - flight.started) * 1000.0, 3)
            self._slots[flight.slot] = reported(
                flight.candidate,
                cancelled_outcome(flight.candidate, latency_ms, hedged=flight.hedged, deadline=deadline),
            )
        self._running.clear()
        self._reaper.take(tasks)
