"""Quota counting for the ledger: calls an agent made in the last hour and day, kept as counters on its row.

Every function here runs inside the ledger's transaction with the agent's row locked (ledger.py), so the counts are
exact under any interleaving. A reservation reads the counters, takes off only the calls that left a window since
the last reservation, and writes them back: it costs the same with 10 or 1,000,000 calls an hour.
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


def counted_usage(
    tx: Transaction, agent: Agent, counters: tuple[Any, ...], now: float
) -> tuple[Usage, tuple[float, float]]:
    """Quota use from the agent's counters (read under its lock, written by the reservation): only the calls that
    left a window since the last reservation are counted, so a reservation costs the same with 10 or 1,000,000
    calls an hour. Also the new window edges to store with the counters.

    Calls past a day leave every window and are deleted here; none older than `day_from` is left, so the ones
    deleted are exactly those that left the day window since (one statement for both)."""
    hour_used_before, hour_from, day_used_before, day_from = counters
    hour_used = _advance(tx, agent.name, int(hour_used_before), hour_from, now - HOUR)
    left_day = tx.changed("DELETE FROM accounts_calls_v1 WHERE agent = ? AND at <= ?", agent.name, now - DAY)
    if day_from is None or now - DAY < float(day_from):
        day_used = _advance(tx, agent.name, 0, None, now - DAY)  # counted afresh
    else:
        day_used = int(day_used_before) - left_day
    resets = None
    if agent.per_hour is not None and hour_used:
        oldest = tx.one(_OLDEST, agent.name, now - HOUR)
        resets = None if oldest is None else float(oldest[0]) + HOUR
    usage = Usage(hour_used, agent.per_hour, resets, day_used, agent.per_day)
    return usage, (now - HOUR, now - DAY)


def _advance(tx: Transaction, name: str, used: int, since: float | None, edge: float) -> int:
    """The calls in (edge, now], from `used` calls in (since, now]: take off those in (since, edge]. Counted
    afresh when the counter never started or the clock went back past its edge."""
    if since is None or edge < float(since):
        row = tx.one("SELECT count(*) FROM accounts_calls_v1 WHERE agent = ? AND at > ?", name, edge)
        return int(row[0]) if row is not None else 0
    row = tx.one("SELECT count(*) FROM accounts_calls_v1 WHERE agent = ? AND at > ? AND at <= ?", name, since, edge)
    return used - (int(row[0]) if row is not None else 0)


_OLDEST = "SELECT at FROM accounts_calls_v1 WHERE agent = ? AND at > ? ORDER BY at LIMIT 1"


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
