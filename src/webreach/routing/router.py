"""Router: one named engine, auto fallback with hedging, or multi fan-out and merge, each under one deadline.

Decisions (the design leaves them open):
- single: the named engine only. A failure re-raises that engine's own typed error unchanged (its `engine`
  filled in when the engine left it empty), so the caller sees e.g. `captcha`, not a wrapper; the Gateway
  builds error output from the error itself, and `attempts.failed_attempt()` rebuilds the attempt if wanted.
  A call still running at the deadline raises EngineTimeoutError.
- auto: candidates in order. Typed engine failures and "no results" move on (another index may know the
  query). If the running engine has not answered within `hedge_delay`, the next one starts too (hedged);
  the first answer with hits wins and the others are cancelled. A failure while others run starts nobody
  new (the hedge timer keeps going); a failure with nothing else running starts the next one at once.
  `hedge_delay=math.inf` turns hedging off.
- multi: every candidate at once; hits merged by routing.merge; failures and cut-offs stay in meta.
- No hits at all: an empty success when some engine answered "no results" and none failed (skipped engines
  are neutral: they were never asked); NotConfiguredError when every candidate was skipped as not configured
  (nothing went upstream, so "all engines failed" would mislead); otherwise AllEnginesFailedError with every
  engine's error, skipped and cut-off ones included, and a message listing `engine: code` pairs.
- engines_used names the engines the response comes from: the winner (auto), the engines whose hits were
  merged (multi), or, for an empty success, those that answered "no results". meta.stale is True when any
  of them was served from a stale cache entry.
- Candidates listed twice are asked once (the first listing counts).
- `request.limit` is applied in one place, `respond()`, which builds every response search returns (the
  routed ones here and Searching's stale-if-error one): engines, the cache and merge hand over every hit they
  have, and only the response is cut. Routing knows nothing of caching: a cached answer is one more Search
  result (EngineResult.cached / .stale), reported in meta as the engines gave it.
- single runs its one call in the caller's task under the clock's timeout (Clock.timeout); auto and multi start
  a task per engine. Before any of that, single and auto ask their (first) candidate for an answer that needs no
  I/O (Candidate.at_once: a fresh entry of the in-process cache): when it has one, the search answers in the
  caller's task with no deadline timeout, task or hedge timer, its attempt reported (cached) as any other. Auto
  takes it only when it has hits (an empty one moves on, as always). Every miss then goes the usual way. The
  attempt and response of such an answer are kept with its cache entry (EngineResult.kept) and copied per call
  with that call's latency and elapsed time (routing/kept.py).
- A search answers as soon as it has its answer: calls it no longer needs (hedged losers, calls cut off by the
  deadline) are cancelled and left to unwind in the Router's Reaper, which holds them until they end;
  `aclose()` waits (bounded) for the last of them, and Searching calls it before closing the HTTP clients.
- Timers run on the injected clock. With FakeClock a sleep returns at once, so tests drive hedging and the
  deadline deterministically; with SystemClock they are real waits raced against the engine calls.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Sequence

from webreach.clock import Clock
from webreach.errors import AllEnginesFailedError, NotConfiguredError
from webreach.models import EngineAttempt, Hit, SearchMeta, SearchRequest, SearchResponse
from webreach.routing.attempts import (
    Candidate,
    Outcome,
    answered_at_once,
    call_engine,
    cancelled_outcome,
    reported,
)
from webreach.routing.flights import Flights
from webreach.routing.kept import response_again
from webreach.routing.merge import merge
from webreach.routing.reaper import Reaper


class Router:
    """Runs one search over candidate engines in one of three modes and reports every attempt in meta."""

    def __init__(self, *, clock: Clock, hedge_delay: float, deadline: float) -> None:
        if hedge_delay < 0:
            raise ValueError(f"hedge_delay must be >= 0, got {hedge_delay}")
        if deadline <= 0:
            raise ValueError(f"deadline must be > 0, got {deadline}")
        self._clock = clock
        self._hedge_delay = hedge_delay
        self._deadline = deadline
        self._reaper = Reaper()  # cancelled engine calls, unwinding after their search has answered

    @property
    def unwinding(self) -> int:
        """How many cancelled engine calls have not finished unwinding yet."""
        return len(self._reaper)

    async def aclose(self) -> None:
        """Wait (bounded) for every cancelled engine call to finish unwinding: call before closing clients."""
        await self._reaper.drain()

    def single_at_once(self, candidate: Candidate, request: SearchRequest) -> SearchResponse | None:
        """single()'s answer when this engine answers at once (Candidate.at_once: no I/O), reported as single()
        reports it; else None, with nothing reported. A caller that tries this first awaits no coroutine for a
        cached answer (each coroutine layer is about a microsecond of a cached REST search's few dozen)."""
        began = self._clock.now()
        cached = answered_at_once(candidate, request, self._clock)
        return None if cached is None else self._at_once(request, "engine", cached, began)

    async def single(self, candidate: Candidate, request: SearchRequest) -> SearchResponse:
        """Ask exactly this engine; its own typed error propagates when it fails."""
        answered = self.single_at_once(candidate, request)
        return answered if answered is not None else await self.single_asked(candidate, request)

    async def single_asked(self, candidate: Candidate, request: SearchRequest) -> SearchResponse:
        """single() once single_at_once() had no answer: the engine asked, under the deadline."""
        began = self._clock.now()
        try:
            # in this task, under the clock's timeout: an answer that needs no I/O (a cache hit) costs no task
            async with self._clock.timeout(self._deadline):
                outcome = await call_engine(candidate, request, self._clock, hedged=False)
        except TimeoutError:
            latency_ms = round(max(0.0, self._clock.now() - began) * 1000.0, 3)
            outcome = reported(
                candidate, cancelled_outcome(candidate, latency_ms, hedged=False, deadline=self._deadline)
            )
        if outcome.error is not None:
            raise outcome.error
        return self._respond(request, "engine", outcome.hits, [outcome], [outcome], began)

    async def auto(self, candidates: Sequence[Candidate], request: SearchRequest) -> SearchResponse:
        """Fall back through `candidates` in order, hedging slow engines; the first answer with hits wins."""
        began = self._clock.now()
        # only the first is looked at: candidates built on demand (LazyCandidates) build the rest on a miss only
        cached = answered_at_once(candidates[0], request, self._clock, with_hits=True) if candidates else None
        if cached is not None:
            return self._at_once(request, "auto", cached, began)
        waiting = deque(_unique(candidates))
        async with Flights(self._clock, request, self._reaper) as flights:
            winner = await self._race(flights, waiting, deadline_at=began + self._deadline)
            outcomes = flights.outcomes
        if winner is None:
            return self._nothing_found(request, "auto", outcomes, began, not_tried=len(waiting))
        return self._respond(request, "auto", winner.hits, [winner], outcomes, began)

    async def multi(self, candidates: Sequence[Candidate], request: SearchRequest) -> SearchResponse:
        """Ask every candidate at once and merge what came back before the deadline."""
        began = self._clock.now()
        unique = _unique(candidates)
        outcomes = await self._fly(unique, request)
        contributors = [outcome for outcome in outcomes if outcome.good]
        if not contributors:
            return self._nothing_found(request, "multi", outcomes, began)
        hits = merge(
            {outcome.attempt.engine: outcome.hits for outcome in contributors},
            {candidate.name: candidate.index for candidate in unique},
        )
        return self._respond(request, "multi", hits, contributors, outcomes, began)

    async def _fly(self, candidates: Sequence[Candidate], request: SearchRequest) -> list[Outcome]:
        """Call every candidate at once (each with its own task) until all ended or the deadline cut them off."""
        async with Flights(self._clock, request, self._reaper) as flights:
            for candidate in candidates:
                flights.start(candidate, hedged=False)
            flights.arm(self._deadline)
            while flights.busy:
                _, fired = await flights.wait()
                if fired:
                    flights.stop(deadline=self._deadline)
            return flights.outcomes

    async def _race(self, flights: Flights, waiting: deque[Candidate], *, deadline_at: float) -> Outcome | None:
        """Start candidates from `waiting` as auto's rules say; the winning outcome, or None when none won."""
        hedge_timer = False  # whether the armed timer means "hedge" (else "deadline")
        while True:
            if not flights.busy:
                if not waiting:
                    return None
                flights.start(waiting.popleft(), hedged=False)
                flights.disarm()  # the hedge delay counts from the newest start
            if not flights.armed:
                hedge_timer = self._arm(flights, deadline_at, can_hedge=bool(waiting))
            landed, fired = await flights.wait()
            winner = next((outcome for outcome in landed if outcome.good), None)
            if winner is not None:
                flights.stop()
                return winner
            if fired and not hedge_timer:
                flights.stop(deadline=self._deadline)
                return None
            if fired and flights.busy:
                flights.start(waiting.popleft(), hedged=True)

    def _arm(self, flights: Flights, deadline_at: float, *, can_hedge: bool) -> bool:
        """Arm the hedge timer when a hedge can come before the deadline, else the deadline; True for hedge."""
        remaining = max(0.0, deadline_at - self._clock.now())
        hedge = can_hedge and self._hedge_delay < remaining
        flights.arm(self._hedge_delay if hedge else remaining)
        return hedge

    def _nothing_found(
        self, request: SearchRequest, mode: str, outcomes: list[Outcome], began: float, *, not_tried: int = 0
    ) -> SearchResponse:
        """No hits anywhere: an empty success if engines said "no results" and none failed, else raise."""
        if not outcomes:
            raise NotConfiguredError("no engine to search with", hint="Name an engine or configure some for auto.")
        empty = [outcome for outcome in outcomes if outcome.attempt.status == "empty"]
        failed = any(outcome.error is not None and outcome.attempt.status != "skipped" for outcome in outcomes)
        if empty and not failed:
            return self._respond(request, mode, (), empty, outcomes, began)
        if not not_tried and all(o.attempt.code == "not_configured" for o in outcomes):
            names = ", ".join(o.attempt.engine for o in outcomes)
            raise NotConfiguredError(
                f"no engine could search: every candidate needs configuration ({names})",
                hint="Configure an API key for one of them, or use a keyless engine (see `webreach engines`).",
            )
        pairs = ", ".join(f"{o.attempt.engine}: {o.attempt.code or 'no results'}" for o in outcomes)
        message = f"no engine returned results ({pairs})"
        if not_tried:
            message += f"; {not_tried} more not tried before the {self._deadline:g} s deadline"
        raise AllEnginesFailedError(
            message,
            errors=[o.error for o in outcomes if o.error is not None],
            attempts=[o.attempt for o in outcomes],
        )

    def _at_once(self, request: SearchRequest, mode: str, outcome: Outcome, began: float) -> SearchResponse:
        """The response of an answer at once: kept whole with its cache entry and copied with this call's attempt
        and elapsed time (routing/kept.py), or built when the answer keeps nothing."""
        result = outcome.result
        assert result is not None

        def build() -> SearchResponse:
            return self._respond(request, mode, outcome.hits, [outcome], [outcome], began)

        if result.kept is None:
            return build()
        key = ("response", mode, request.query, request.limit, outcome.attempt.engine)
        elapsed_ms = round(max(0.0, self._clock.now() - began) * 1000.0, 3)
        return response_again(result.kept, key, outcome.attempt, elapsed_ms, build)

    def _respond(
        self,
        request: SearchRequest,
        mode: str,
        hits: Sequence[Hit],
        used: Sequence[Outcome],
        outcomes: Sequence[Outcome],
        began: float,
    ) -> SearchResponse:
        return respond(
            request,
            mode,
            hits,
            engines_used=[outcome.attempt.engine for outcome in used],
            attempts=[outcome.attempt for outcome in outcomes],
            elapsed_ms=round(max(0.0, self._clock.now() - began) * 1000.0, 3),
            stale=any([outcome.result is not None and outcome.result.stale for outcome in used]),
            answer=next((o.result.answer for o in used if o.result is not None and o.result.answer), None),
        )


def respond(
    request: SearchRequest,
    mode: str,
    hits: Sequence[Hit],
    *,
    engines_used: Iterable[str],
    attempts: Iterable[EngineAttempt],
    elapsed_ms: float = 0.0,
    stale: bool = False,
    answer: str | None = None,
) -> SearchResponse:
    """The response to `request`: at most `request.limit` hits (the one place the limit is applied) and meta."""
    meta = SearchMeta(
        mode=mode,
        engines_used=tuple(engines_used),
        attempts=tuple(attempts),
        elapsed_ms=elapsed_ms,
        stale=stale,
    )
    return SearchResponse(query=request.query, results=tuple(hits[: request.limit]), meta=meta, answer=answer)


def _unique(candidates: Sequence[Candidate]) -> list[Candidate]:
    first: dict[str, Candidate] = {}
    for candidate in candidates:
        first.setdefault(candidate.name, candidate)
    return list(first.values())
