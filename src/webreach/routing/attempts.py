"""One engine call as routing sees it: the candidate, the timed call, and the EngineAttempt it leaves in meta.

Every call ends in exactly one attempt:
  ok         hits came back                    empty      the engine answered "no results"
  error      an EngineError (code, message, retry_after from the error)
  skipped    NotConfiguredError or SuspendedError (ThrottledError too): no request went out (breaker open, our
             own rate limit, no key)
  cancelled  a hedged loser, or cut off by the routing deadline (then code "timeout" and an EngineTimeoutError)

Only EngineError and NotConfiguredError are an engine's own failure and let routing move on; anything else
(InvalidInputError, a bug) propagates, because another engine would not make it right.

A candidate's `on_attempt` listener (the CLI's -v) hears each attempt the moment its call ends, cancelled ones
included, while the search goes on; it must not raise or block.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import overload

from webreach.clock import Clock
from webreach.errors import EngineError, EngineTimeoutError, NotConfiguredError, SuspendedError, WebreachError
from webreach.models import EngineAttempt, Hit, SearchRequest
from webreach.policies.contract import EngineResult, Search
from webreach.routing.kept import attempt_again

EngineFailure = EngineError | NotConfiguredError
AttemptListener = Callable[[EngineAttempt], None]


@dataclass(slots=True)  # not frozen: built for every search, and frozen doubles its cost
class Candidate:
    """An engine routing may ask, with its policy stack already applied."""

    name: str
    index: str  # the underlying index: engines sharing one (duckduckgo, yahoo -> "bing") count once in merge
    search: Search
    unsupported: tuple[str, ...] = ()  # requested parameters this engine ignores, shown in its attempt
    on_attempt: AttemptListener | None = None  # told of each attempt as its call ends
    # the answer when it needs no I/O (a fresh entry of the in-process cache: policies/cache.py Cache.at_once),
    # else None; routing asks it before starting any task or timer
    at_once: Callable[[SearchRequest], EngineResult | None] | None = None


class LazyCandidates(Sequence[Candidate]):
    """The candidates for `names`, each built by `build` when first looked at: a cached auto search answered by
    its first engine (Router.auto) builds one candidate, not one per engine of the order (11 by default)."""

    def __init__(self, names: Sequence[str], build: Callable[[str], Candidate]) -> None:
        self._names = names
        self._build = build
        self._built: dict[int, Candidate] = {}

    def __len__(self) -> int:
        return len(self._names)

    @overload
    def __getitem__(self, index: int) -> Candidate: ...
    @overload
    def __getitem__(self, index: slice) -> Sequence[Candidate]: ...
    def __getitem__(self, index: int | slice) -> Candidate | Sequence[Candidate]:
        if isinstance(index, slice):
            return [self[i] for i in range(len(self))[index]]
        position = range(len(self))[index]  # IndexError past the end, negative indexes from it
        built = self._built.get(position)
        if built is None:
            built = self._built[position] = self._build(self._names[position])
        return built


@dataclass(slots=True)  # not frozen: built for every call, and frozen costs 4x
class Outcome:
    """How one engine call ended: the attempt for meta, plus the result or the error behind it."""

    attempt: EngineAttempt
    result: EngineResult | None = None
    error: WebreachError | None = None

    @property
    def hits(self) -> tuple[Hit, ...]:
        return self.result.hits if self.result is not None else ()

    @property
    def good(self) -> bool:
        """True when the engine returned at least one hit."""
        return bool(self.hits)


async def call_engine(candidate: Candidate, request: SearchRequest, clock: Clock, *, hedged: bool) -> Outcome:
    """Ask one engine, timing the call; typed engine failures become an Outcome, everything else propagates."""
    started = clock.now()
    try:
        result = await candidate.search(request)
    except (EngineError, NotConfiguredError) as err:
        if err.engine is None:
            # name the engine so the error stands on its own inside AllEnginesFailedError.errors
            err.engine = candidate.name
        failed = Outcome(failed_attempt(candidate, err, _ms(clock.now() - started), hedged=hedged), error=err)
        return reported(candidate, failed)
    return reported(candidate, answered(candidate, result, _ms(clock.now() - started), hedged=hedged))


def answered_at_once(
    candidate: Candidate, request: SearchRequest, clock: Clock, *, with_hits: bool = False
) -> Outcome | None:
    """The candidate's answer when it has one without I/O (Candidate.at_once; `with_hits`: one with hits),
    reported as its call would be; None when it has none (nothing reported: it is then called as usual). An
    in-process cache entry's attempt is kept with it and copied with this call's latency (routing/kept.py)."""
    if candidate.at_once is None:
        return None
    started = clock.now()
    result = candidate.at_once(request)
    if result is None or (with_hits and not result.hits):
        return None
    latency_ms = _ms(clock.now() - started)
    if result.kept is None:
        return reported(candidate, answered(candidate, result, latency_ms, hedged=False))
    # the attempt this cache entry's answer was reported with, again with this call's latency (routing/kept.py)
    key = ("attempt", candidate.name, candidate.unsupported)
    attempt = attempt_again(
        result.kept, key, latency_ms, lambda ms: answered(candidate, result, ms, hedged=False).attempt
    )
    return reported(candidate, Outcome(attempt, result=result))


def reported(candidate: Candidate, outcome: Outcome) -> Outcome:
    """`outcome`, after telling the candidate's listener (if any) of its attempt."""
    if candidate.on_attempt is not None:
        candidate.on_attempt(outcome.attempt)
    return outcome


def answered(candidate: Candidate, result: EngineResult, latency_ms: float, *, hedged: bool) -> Outcome:
    """The outcome of a call that returned (hits or "no results")."""
    attempt = EngineAttempt(
        engine=candidate.name,
        status="ok" if result.hits else "empty",
        latency_ms=latency_ms,
        count=len(result.hits),
        cached=result.cached,
        stale=result.stale,
        hedged=hedged,
        unsupported=candidate.unsupported,
        parsed_by=result.parsed_by,
    )
    return Outcome(attempt, result=result)


def failed_attempt(candidate: Candidate, error: EngineFailure, latency_ms: float, *, hedged: bool) -> EngineAttempt:
    """The attempt for a typed failure; callers holding only the raised error can rebuild it with this."""
    skipped = isinstance(error, NotConfiguredError | SuspendedError)
    return EngineAttempt(
        engine=candidate.name,
        status="skipped" if skipped else "error",
        code=error.code,
        message=str(error),
        latency_ms=latency_ms,
        retry_after=error.retry_after,
        hedged=hedged,
        unsupported=candidate.unsupported,
    )


def cancelled_outcome(candidate: Candidate, latency_ms: float, *, hedged: bool, deadline: float | None) -> Outcome:
    """A call routing stopped: a hedged loser (deadline None) or one cut off by the routing deadline."""
    if deadline is None:
        attempt = EngineAttempt(
            engine=candidate.name,
            status="cancelled",
            message="another engine answered first",
            latency_ms=latency_ms,
            hedged=hedged,
            unsupported=candidate.unsupported,
        )
        return Outcome(attempt)
    error = EngineTimeoutError(f"no answer within the {deadline:g} s search deadline", engine=candidate.name)
    attempt = EngineAttempt(
        engine=candidate.name,
        status="cancelled",
        code=error.code,
        message=str(error),
        latency_ms=latency_ms,
        hedged=hedged,
        unsupported=candidate.unsupported,
    )
    return Outcome(attempt, error=error)


def _ms(seconds: float) -> float:
    return round(max(0.0, seconds) * 1000.0, 3)
