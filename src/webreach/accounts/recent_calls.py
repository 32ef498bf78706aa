"""The recent tool calls of agents on this server, for the console's agents page: who, which tool, the engines each
call tried and how each ended, its status, latency and the credits it cost.

Kept in memory (the last 500 calls of this process): the ledger already holds what each call cost, durably and for
every server; this adds what only the process that ran the call knows (engines, latency), and costs a list append
per metered call, no database write. A server therefore lists its own calls.

Engines are collected through the Gateway's attempt listener: the metering policy opens a collection for the call
(a context variable, so the hedged and fanned-out tasks a search starts add to the same list) and records it when
the call is settled.
"""

from __future__ import annotations

import contextlib
from collections import deque
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import asdict, dataclass
from typing import Any

from webreach.models import EngineAttempt

KEPT = 500


@dataclass(frozen=True)
class RecentCall:
    """One metered call as the console lists it."""

    at: float
    agent: str
    tool: str
    engines: tuple[str, ...]  # "mojeek ok", "bing captcha": each engine tried and how its attempt ended
    status: str  # "ok" or the error code
    latency_ms: float
    credits: int | None  # charged; None when the call was released (not charged)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class RecentCalls:
    """The last KEPT metered calls of this process, newest last."""

    def __init__(self, kept: int = KEPT) -> None:
        self._calls: deque[RecentCall] = deque(maxlen=kept)
        self._attempts: ContextVar[list[str] | None] = ContextVar("webreach_call_attempts", default=None)

    def note_attempt(self, attempt: EngineAttempt) -> None:
        """The Gateway's attempt listener: adds the attempt to the running call's collection, if one is open."""
        collected = self._attempts.get()
        if collected is not None:
            collected.append(f"{attempt.engine} {attempt.code or attempt.status}")

    @contextlib.contextmanager
    def collecting(self) -> Iterator[list[str]]:
        """Collect the engine attempts of the call running in this context."""
        collected: list[str] = []
        token = self._attempts.set(collected)
        try:
            yield collected
        finally:
            self._attempts.reset(token)

    def record(self, call: RecentCall) -> None:
        self._calls.append(call)

    def calls(self, agent: str | None = None, limit: int = 50) -> list[RecentCall]:
        """The newest `limit` calls (of `agent` only, when given), newest first."""
        chosen = [call for call in reversed(self._calls) if agent is None or call.agent == agent]
        return chosen[:limit]
