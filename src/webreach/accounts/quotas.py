"""Quota counting for the ledger: calls an agent made in the last hour and day, kept as counters on its row.

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


_COUNT = "SELECT count(*), min(at) FROM accounts_calls_v1 WHERE agent = ? AND at > ?"
_NEVER = 1e300  # a time no call has: an index range that starts there is empty at once

# everything a reservation reads besides the agent's row, in one statement (one round trip): its reservations
# whose lease passed, the calls in (a, b] (those that left the hour window since the counters, or every call of the
# hour when counting afresh), its calls past a day (deleted once the call is allowed), the calls in (c, d] (the day
# counted afresh, else an empty range) and its oldest call of the hour (when the hour's quota resets)
_PROBE = (
    "SELECT (SELECT count(*) FROM accounts_open_v1 WHERE agent = ? AND expires < ?),"
    " (SELECT count(*) FROM accounts_calls_v1 WHERE agent = ? AND at > ? AND at <= ?),"
    " (SELECT count(*) FROM accounts_calls_v1 WHERE agent = ? AND at <= ?),"
    " (SELECT count(*) FROM accounts_calls_v1 WHERE agent = ? AND at > ? AND at <= ?),"
    " (SELECT at FROM accounts_calls_v1 WHERE agent = ? AND at > ? ORDER BY at LIMIT 1)"
)


@dataclass(frozen=True)
class Probe:
    """What one reservation read of the agent's calls (quotas.probe): enough to decide it and write it back."""

    expired: int  # reservations whose lease passed: recover them, then probe again
    usage: Usage
    counters: tuple[float, float]  # the window edges to store with the counters
    past_day: int  # calls that left every window: deleted when the reservation is written (prune_calls)


def probe(tx: Transaction, agent: Agent, counters: tuple[Any, ...], now: float) -> Probe:
    """Quota use from the agent's counters (read under its lock, written by the reservation): only the calls that
    left a window since the last reservation are counted, so a reservation costs the same with 10 or 1,000,000
    calls an hour; one statement reads that, the expired reservations and the oldest call of the hour.

    Calls past a day leave every window and are deleted once the call is allowed (prune_calls): none older than
    `day_from` is left, so they are exactly those that left the day window since."""
    hour_used_before, hour_from, day_used_before, day_from = counters
    hour_edge, day_edge, name = now - HOUR, now - DAY, agent.name
    hour_afresh = hour_from is None or hour_edge < float(hour_from)
    day_afresh = day_from is None or day_edge < float(day_from)
    hour_range = (hour_edge, _NEVER) if hour_afresh else (float(hour_from), hour_edge)
    day_range = (day_edge, _NEVER) if day_afresh else (_NEVER, _NEVER)
    oldest_after = hour_edge if agent.per_hour is not None else _NEVER
    row = tx.one(_PROBE, name, now, name, *hour_range, name, day_edge, name, *day_range, name, oldest_after)
    assert row is not None  # a SELECT of scalar subqueries has one row
    expired, hour_count, past_day, day_count, oldest = row
    hour_used = int(hour_count) if hour_afresh else int(hour_used_before) - int(hour_count)
    day_used = int(day_count) if day_afresh else int(day_used_before) - int(past_day)
    resets = float(oldest) + HOUR if oldest is not None and hour_used else None
    usage = Usage(hour_used, agent.per_hour, resets, day_used, agent.per_day)
    return Probe(int(expired), usage, (hour_edge, day_edge), int(past_day))


def prune_calls(tx: Transaction, name: str, found: Probe, now: float) -> None:
    """Delete the agent's calls past a day that `found` counted (nothing to do, no statement, when none)."""
    if found.past_day:
        tx.run("DELETE FROM accounts_calls_v1 WHERE agent = ? AND at <= ?", name, now - DAY)


def usage_now(tx: Transaction, agent: Agent, now: float) -> Usage:
    hour_used, oldest = 0, None
    if agent.per_hour is not None:
        row = tx.one(_COUNT, agent.name, now - HOUR)
        assert row is not None
        hour_used, oldest = int(row[0]), row[1]
    day_used = 0
    if agent.per_day is not None:
        row = tx.one(_COUNT, agent.name, now - DAY)
        day_used = int(row[0]) if row is not None else 0
    resets = None if oldest is None else float(oldest) + HOUR
    return Usage(hour_used, agent.per_hour, resets, day_used, agent.per_day)


def check_quota(tx: Transaction, agent: Agent, usage: Usage, now: float) -> None:
    for limit, used, window in ((agent.per_hour, usage.hour_used, HOUR), (agent.per_day, usage.day_used, DAY)):
        if limit is None or used < limit:
            continue
        # the call that frees a slot: the (used - limit + 1)-th oldest counted one leaves the window
        row = tx.one(
            "SELECT at FROM accounts_calls_v1 WHERE agent = ? AND at > ? ORDER BY at LIMIT 1 OFFSET ?",
            agent.name,
            now - window,
            used - limit,
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
