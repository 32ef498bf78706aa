"""Circuit breaker: after a block, a rate limit, bad credentials or repeated failures an engine rests.

While open, calls raise SuspendedError (retry_after = time left) without reaching the engine, so auto mode
moves on at once. When the rest is over the breaker is half-open: exactly one probe goes through at a time
(concurrent callers get SuspendedError); its success closes the breaker, its failure re-opens it for longer.

Suspensions, by the error's code (seconds; each consecutive opening doubles the base, up to the cap):
    captcha 3600 (cap 6 h)   blocked 600 (cap 1 h)   rate_limited 300 (cap 30 min)
    auth_failed, quota_exhausted 24 h, or until reconfigured, whichever comes first (below); a long-running
        server with the same configuration still probes once a day
    timeout, unavailable, parse_error and other engine errors: after 3 consecutive failures, 60 (cap 10 min)
An error that carries retry_after (Retry-After, a quota reset) is taken at its word instead, within 1 s..24 h.
InvalidInputError, NotConfiguredError, BadRequestError (our request was malformed), UnreachableError (this
machine's network failed: no DNS, no route, a refused connection; the engine did nothing) and SuspendedError
with its ThrottledError (our own breaker and rate limit) never count: breakers are for what an engine did.

Across processes: given a BreakerStore, a breaker writes its record (state/breaker_store.py) whenever a trip,
a close or a failure count changes it, and PolicyState restores every stored record when it is created, so a
CLI run skips an engine an earlier run saw a CAPTCHA from. Before each call, open or not, the breaker asks its
`sync` (PolicyState.sync) whether other processes changed the shared state; that looks at the store at most
every SYNC_INTERVAL and otherwise costs a clock read. So a suspension another process recorded, a reset
(`webreach engines --reset`, the admin endpoint) and a deleted state file reach a running server within
SYNC_INTERVAL, with no restart; within that interval two processes may both probe a half-open engine once
(a request each, never a suspension). Status and views show what this process last saw.

"Until reconfigured": each breaker knows its engine's configuration fingerprint (a short hash of API key, base
URL and options that searching.py computes; the key itself is never stored) and writes it into every record.
A stored auth_failed or quota_exhausted suspension recorded under another fingerprint is about credentials
that are no longer in use: restoring or re-reading it closes the breaker and writes the closed record back.
Every other suspension (a CAPTCHA, a rate limit) is about our address, not our key, and holds whatever the
configuration. BreakerState.reset() closes a breaker and deletes its record, for an operator who knows better.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal

from webreach.clock import Clock
from webreach.errors import Arg, EngineError, SuspendedError, hint
from webreach.models import SearchRequest
from webreach.policies.contract import EngineResult, Search
from webreach.state.breaker_store import BreakerRecord, BreakerStore

BreakerStatus = Literal["closed", "open", "half_open"]

HOUR = 3600.0
FAILURE_THRESHOLD = 3
MIN_SUSPENSION = 1.0
MAX_SUSPENSION = 24 * HOUR
# what a caller turned away during a probe is told; a probe ends within the engine timeout
PROBE_RETRY_AFTER = 5.0


@dataclass(frozen=True)
class Suspension:
    """How long an error class suspends an engine: base on the first opening, doubled per repeat, capped."""

    base: float
    cap: float

    def seconds(self, openings: int) -> float:
        """Length of the `openings`-th consecutive suspension (1-based)."""
        return min(self.base * 2.0 ** max(0, openings - 1), self.cap)


SUSPENSIONS: Mapping[str, Suspension] = MappingProxyType(
    {
        "captcha": Suspension(HOUR, 6 * HOUR),
        "blocked": Suspension(600.0, HOUR),
        "rate_limited": Suspension(300.0, 1800.0),
        "auth_failed": Suspension(24 * HOUR, 24 * HOUR),
        "quota_exhausted": Suspension(24 * HOUR, 24 * HOUR),
    }
)
REPEATED_FAILURES = Suspension(60.0, 600.0)
# bad_request: the engine answered and the request was ours to fix; unreachable: our network never reached it.
# Resting the engine for either would punish the wrong party (and offline, would rest every engine at once).
NOT_THE_ENGINES_FAULT = frozenset({"bad_request", "unreachable"})
# suspensions about the credentials in use: another configuration (a new key) lifts them
CONFIGURATION_BOUND = frozenset({"auth_failed", "quota_exhausted"})


@dataclass(frozen=True)
class BreakerView:
    """Read-only state of one engine's breaker, for `webreach engines` and meta."""

    engine: str
    state: BreakerStatus
    reason: str | None = None
    retry_after: float | None = None
    failures: int = 0  # consecutive failures counted while closed
    open_until: float | None = None  # epoch seconds the rest ends (also once it has: half-open)


class BreakerState:
    """One engine's breaker. Owned by PolicyState; all times are passed in by the caller's clock.

    With a `store` it re-reads its record before admitting a call and saves it after every change.
    `fingerprint` identifies the engine's current configuration (None: unknown, so stored suspensions for
    bad credentials are taken as they are).
    """

    def __init__(
        self,
        engine: str,
        *,
        store: BreakerStore | None = None,
        fingerprint: str | None = None,
        sync: Callable[[], None] | None = None,
    ) -> None:
        self.engine = engine
        self.fingerprint = fingerprint
        self._store = store
        self._sync = sync  # takes in other processes' changes (PolicyState.sync); may call restore() on us
        self._tripped = False
        self._open_until = 0.0
        self._reason: str | None = None
        self._failures = 0  # consecutive transient failures while closed
        self._openings = 0  # consecutive openings without a success between them
        self._probing = False  # never stored: a probe belongs to the process that sent it

    @classmethod
    def from_record(
        cls,
        record: BreakerRecord,
        *,
        store: BreakerStore | None = None,
        fingerprint: str | None = None,
        sync: Callable[[], None] | None = None,
    ) -> BreakerState:
        """A breaker in the state `record` describes (see restore)."""
        state = cls(record.engine, store=store, fingerprint=fingerprint, sync=sync)
        state.restore(record)
        return state

    def snapshot(self) -> BreakerRecord:
        """This breaker as a record."""
        return BreakerRecord(
            engine=self.engine,
            open_until=self._open_until if self._tripped else 0.0,
            reason=self._reason if self._tripped else None,
            openings=self._openings,
            failures=self._failures,
            fingerprint=self.fingerprint,
        )

    def restore(self, record: BreakerRecord) -> None:
        """Take the state `record` describes (a probe in flight here stays in flight).

        A suspension for credentials recorded under another configuration is dropped instead: the breaker
        closes and the store gets the closed record, so no process keeps refusing the new key.
        """
        if self._outdated(record):
            self._close()
            if self._store is not None:
                self._store.save(self.snapshot())
            return
        self._tripped = record.reason is not None
        self._open_until = record.open_until if self._tripped else 0.0
        self._reason = record.reason
        self._openings = record.openings
        self._failures = record.failures

    def reset(self) -> None:
        """Close the breaker and delete its stored record (an operator says the engine may be tried again)."""
        self._close()
        if self._store is not None:
            self._store.delete(self.engine)

    def _outdated(self, record: BreakerRecord) -> bool:
        return (
            record.reason in CONFIGURATION_BOUND
            and self.fingerprint is not None
            and record.fingerprint != self.fingerprint
        )

    def _close(self) -> None:
        self._tripped = False
        self._open_until = 0.0
        self._reason = None
        self._failures = 0
        self._openings = 0

    def status(self, now: float) -> BreakerStatus:
        """closed, open (resting) or half_open (rest over, next call probes)."""
        if not self._tripped:
            return "closed"
        return "open" if now < self._open_until else "half_open"

    def view(self, now: float) -> BreakerView:
        """A snapshot for display."""
        status = self.status(now)
        if status == "closed":
            return BreakerView(self.engine, status, failures=self._failures)
        retry_after = self._open_until - now if status == "open" else 0.0
        return BreakerView(self.engine, status, self._reason, retry_after, self._failures, self._open_until)

    def admit(self, now: float) -> bool:
        """Let a call through, returning True when it is the half-open probe, or raise SuspendedError."""
        if self._sync is not None:
            self._sync()
        status = self.status(now)
        if status == "closed":
            return False
        if status == "open":
            raise self._suspended(self._open_until - now)
        if self._probing:
            raise SuspendedError(
                f"circuit breaker half-open after {self._reason}; one probe request is testing it",
                engine=self.engine,
                retry_after=PROBE_RETRY_AFTER,
            )
        self._probing = True
        return True

    def _suspended(self, remaining: float) -> SuspendedError:
        if self._reason in CONFIGURATION_BOUND:
            what = "rejected the configured API key" if self._reason == "auth_failed" else "said its quota is spent"
            return SuspendedError(
                f"circuit breaker open after {self._reason}: the provider {what}; the suspension lifts as soon"
                f" as the key (or the engine's base URL or options) is changed, else in {remaining:.0f} s",
                engine=self.engine,
                retry_after=remaining,
                hint=hint(
                    "Set a working API key for this engine or reset its breaker; meanwhile use another engine or {}.",
                    Arg("engine", "auto"),
                ),
            )
        return SuspendedError(
            f"circuit breaker open after {self._reason}; next try in {remaining:.0f} s",
            engine=self.engine,
            retry_after=remaining,
        )

    def end_probe(self) -> None:
        """The probe finished, whatever its outcome: the next half-open call may probe."""
        self._probing = False

    def record_success(self, *, probe: bool) -> None:
        """A call answered. A probe closes the breaker; a call that began before a trip changes nothing."""
        before = self.snapshot()
        if probe or not self._tripped:
            self._close()
        self._save_if_changed(before)

    def record_failure(self, exc: EngineError, now: float, *, probe: bool) -> None:
        """A call failed with an engine error (never SuspendedError): maybe open the breaker."""
        before = self.snapshot()
        self._count_failure(exc, now, probe=probe)
        self._save_if_changed(before)

    def _count_failure(self, exc: EngineError, now: float, *, probe: bool) -> None:
        code = exc.code
        if code in NOT_THE_ENGINES_FAULT:
            return
        suspension = SUSPENSIONS.get(code)
        if suspension is None:
            if self._tripped and not probe:
                return  # began before the trip; the breaker already knows
            self._failures += 1
            if not probe and self._failures < FAILURE_THRESHOLD:
                return
            suspension = REPEATED_FAILURES
        self._trip(code, suspension, exc.retry_after, now)

    def _trip(self, reason: str, suspension: Suspension, retry_after: float | None, now: float) -> None:
        reopening = self.status(now) != "open"
        if reopening:
            self._openings += 1
        if retry_after is not None:
            seconds = min(max(retry_after, MIN_SUSPENSION), MAX_SUSPENSION)
        else:
            seconds = suspension.seconds(self._openings)
        # a late failure while already open may lengthen the rest, never shorten it
        if reopening or now + seconds > self._open_until:
            self._open_until = now + seconds
            self._reason = reason
        self._tripped = True
        self._failures = 0

    def _save_if_changed(self, before: BreakerRecord) -> None:
        # a healthy engine's success changes nothing, so the common path never writes
        after = self.snapshot()
        if self._store is not None and after != before:
            self._store.save(after)


class CircuitBreaker:
    """Fail fast while the engine rests; let one probe through when the rest is over."""

    def __init__(self, inner: Search, *, engine: str, state: BreakerState, clock: Clock) -> None:
        self.inner = inner
        self.engine = engine
        self.state = state
        self.clock = clock

    async def __call__(self, request: SearchRequest) -> EngineResult:
        probe = self.state.admit(self.clock.now())
        try:
            result = await self.inner(request)
        except SuspendedError:
            raise
        except EngineError as exc:
            self.state.record_failure(exc, self.clock.now(), probe=probe)
            raise
        finally:
            if probe:
                self.state.end_probe()
        self.state.record_success(probe=probe)
        return result
