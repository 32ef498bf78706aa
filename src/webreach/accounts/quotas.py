"""Quota counting for the ledger: calls an agent made in the last hour and day, kept as counters on its row.

The calls counted are the agent's reserve rows in the journal that no release row follows (a committed call
counts, a released one does not): one index range of the journal, no table of its own to write per call.

Every function here runs inside the ledger's transaction with the agent's row locked (ledger.py), so the counts are
exact under any interleaving. A reservation reads the counters, takes off only the calls that left a window since
the last reservation, and writes them back: it costs the same with 10 or 1,000,000 calls an hour. What a
reservation reads besides the agent's row is one statement (probe).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from webreach.accounts.database import Transaction
from webreach.errors import AgentQuotaError

HOUR = 3600.0
DAY = 86_400.0
COUNTERS = "hour_used, hour_from, day_used, day_from"


class Agent(Protocol):
    """What quota counting reads of an agent (ledger.Agent)."""

    @property
    def name(self) -> str: ...
    @property
    def per_hour(self) -> int | None: ...
    @property
    def per_day(self) -> int | None: ...


@dataclass(frozen=True)
class Usage:
    """Quota use at a moment: calls counted in the last hour (and day), and when the oldest stops counting."""

    hour_used: int
    hour_limit: int | None
    hour_resets_at: float | None
    day_used: int = 0
    day_limit: int | None = None

    def remaining(self) -> int | None:
        """Calls left before the tightest limit (None: unlimited)."""
        pairs = ((self.hour_limit, self.hour_used), (self.day_limit, self.day_used))
        left = [limit - used for limit, used in pairs if limit is not None]
        return max(0, min(left)) if left else None

    def with_call(self, now: float) -> Usage:
        """This use and one call more, made at `now`."""
        # the call is the oldest of the hour unless an older one counts (the clock may have stepped back)
        resets = min(self.hour_resets_at or now + HOUR, now + HOUR)
        return Usage(self.hour_used + 1, self.hour_limit, resets, self.day_used + 1, self.day_limit)

    def full(self) -> bool:
        """No call left before a limit."""
        hour, day = self.hour_limit, self.day_limit
        return (hour is not None and self.hour_used >= hour) or (day is not None and self.day_used >= day)


_NEVER = 1e300  # a time no call has: an index range that starts there is empty at once


def _kept(agent: str, low: str, high: str) -> str:
    """The agent's calls a quota counts, reserved in (low, high]: its reserve rows (an index range of the journal)
    less those released."""
    return (
        f"FROM accounts_journal_v1 r WHERE r.agent = {agent} AND r.kind = 'reserve' AND r.at > {low}"
        f" AND r.at <= {high} AND NOT EXISTS (SELECT 1 FROM accounts_journal_v1 s"
        " WHERE s.agent = r.agent AND s.call_id = r.call_id AND s.kind = 'release')"
    )


_KEPT = _kept("?", "?", "?")
_COUNT = f"SELECT count(*), min(r.at) {_KEPT}"

# a window counted afresh (counters not started, or the clock went back): every call from its edge on; else the
# calls that left it since the counters, (the edge stored, the edge now]
_HOUR_AFRESH, _DAY_AFRESH = "(a.hour_from IS NULL OR ? < a.hour_from)", "(a.day_from IS NULL OR ? < a.day_from)"
_HOUR = _kept(
    "a.name", f"CASE WHEN {_HOUR_AFRESH} THEN ? ELSE a.hour_from END", f"CASE WHEN {_HOUR_AFRESH} THEN ? ELSE ? END"
)
_DAY = _kept(
    "a.name", f"CASE WHEN {_DAY_AFRESH} THEN ? ELSE a.day_from END", f"CASE WHEN {_DAY_AFRESH} THEN ? ELSE ? END"
)
_OLDEST = _kept("a.name", "CASE WHEN a.per_hour IS NULL THEN ? ELSE ? END", "?")

# everything a reservation reads besides the agent's columns, as columns of the SELECT that reads its row `a` (one
# statement): its reservations whose lease passed, whether the hour is counted afresh and the calls that count (the
# hour's, or those that left it since the counters), the same for the day, and its oldest call of the hour (when
# the hour's quota resets); PROBE_PARAMS gives their parameters, in order
PROBE = (
    "(SELECT count(*) FROM accounts_open_v1 o WHERE o.agent = a.name AND o.expires < ?),"
    f" CASE WHEN {_HOUR_AFRESH} THEN 1 ELSE 0 END, (SELECT count(*) {_HOUR}),"
    f" CASE WHEN {_DAY_AFRESH} THEN 1 ELSE 0 END, (SELECT count(*) {_DAY}),"
    f" (SELECT r.at {_OLDEST} ORDER BY r.at LIMIT 1)"
)


def probe_params(now: float) -> tuple[float, ...]:
    """PROBE's parameters at `now`."""
    hour, day = now - HOUR, now - DAY
    return (now, hour, hour, hour, hour, _NEVER, hour, day, day, day, day, _NEVER, day, _NEVER, hour, _NEVER)


@dataclass(frozen=True)
class Probe:
    """What one reservation read of the agent's calls (quotas.probe): enough to decide it and write it back."""

    expired: int  # reservations whose lease passed: recover them, then probe again
    usage: Usage
    counters: tuple[float, float]  # the window edges to store with the counters


def probe(agent: Agent, read: tuple[Any, ...], now: float) -> Probe:
    """Quota use from the agent's counters and what PROBE read with them (`read`: the counters, then PROBE's
    columns, read under the agent's lock): only the calls that left a window since the last reservation are
    counted, so a reservation costs the same with 10 or 1,000,000 calls an hour."""
    hour_before, _, day_before, _, expired, hour_afresh, hour_count, day_afresh, day_count, oldest = read
    hour_used = int(hour_count) if hour_afresh else int(hour_before) - int(hour_count)
    day_used = int(day_count) if day_afresh else int(day_before) - int(day_count)
    resets = float(oldest) + HOUR if oldest is not None and hour_used else None
    usage = Usage(hour_used, agent.per_hour, resets, day_used, agent.per_day)
    return Probe(int(expired), usage, (now - HOUR, now - DAY))


def usage_now(tx: Transaction, agent: Agent, now: float) -> Usage:
    hour_used, oldest = 0, None
    if agent.per_hour is not None:
        row = tx.one(_COUNT, agent.name, now - HOUR, _NEVER)
        assert row is not None
        hour_used, oldest = int(row[0]), row[1]
    day_used = 0
    if agent.per_day is not None:
        row = tx.one(_COUNT, agent.name, now - DAY, _NEVER)
        day_used = int(row[0]) if row is not None else 0
    resets = None if oldest is None else float(oldest) + HOUR
    return Usage(hour_used, agent.per_hour, resets, day_used, agent.per_day)


def check_quota(tx: Transaction, agent: Agent, usage: Usage, now: float) -> None:
    for limit, used, window in ((agent.per_hour, usage.hour_used, HOUR), (agent.per_day, usage.day_used, DAY)):
        if limit is None or used < limit:
            continue
        # the call that frees a slot: the (used - limit + 1)-th oldest counted one leaves the window
        row = tx.one(
            f"SELECT r.at {_KEPT} ORDER BY r.at LIMIT 1 OFFSET ?", agent.name, now - window, _NEVER, used - limit
        )
        resets_at = (float(row[0]) if row is not None else now) + window
        per = "hour" if window == HOUR else "day"
        raise AgentQuotaError(
            f"agent {agent.name!r} made its {limit} calls per {per}",
            retry_after=max(0.0, resets_at - now),
            resets_at=iso(resets_at),
            limit=limit,
        )


def iso(seconds: float) -> str:
    return datetime.fromtimestamp(seconds, UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
