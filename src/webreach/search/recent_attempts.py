"""Each engine's recent attempts in this process, summed for operators: success, CAPTCHA and rate-limit shares and
latency, from the same EngineAttempt reports the metrics count (frontends/_metrics.py) and the CLI's -v prints.

Bounded: the last WINDOW attempts per engine (a deque each; engines are a fixed set). Cache hits count as
attempts but not in latency, which is the engine's own (p50 and p90 of the attempts that asked it). Per process:
with several replicas each console shows what its replica saw (Prometheus sums the fleet's)."""

from __future__ import annotations

import statistics
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from webreach.engine_attempt import EngineAttempt

WINDOW = 200
CAPTCHA_CODES = frozenset({"captcha", "blocked"})
RATE_CODES = frozenset({"rate_limited", "throttled"})


@dataclass(frozen=True)
class RecentEngine:
    """One engine's last attempts: how many, the shares that answered, hit a bot wall or a rate limit, and how
    fast the engine answered when it was asked (None: no attempt asked it)."""

    attempts: int
    ok_share: float
    captcha_share: float
    rate_limited_share: float
    cached_share: float
    p50_ms: float | None
    p90_ms: float | None


class _Seen(NamedTuple):  # one per attempt noted: a tuple builds in under half a frozen dataclass's time
    ok: bool
    code: str | None
    cached: bool
    latency_ms: float


class RecentAttempts:
    """The listener (`note`) and the summary (`summary`); safe from any thread."""

    def __init__(self, window: int = WINDOW) -> None:
        self._window = window
        self._seen: dict[str, deque[_Seen]] = {}
        self._lock = threading.Lock()

    def note(self, attempt: EngineAttempt) -> None:
        """An attempt as it ends (an attempt listener: no I/O, microseconds). Skipped and cancelled ones
        (the engine was never asked, or the answer was not needed) are not counted."""
        if attempt.status in ("skipped", "cancelled") and attempt.code not in RATE_CODES:
            return
        seen = _Seen(attempt.status in ("ok", "empty"), attempt.code, attempt.cached, attempt.latency_ms)
        with self._lock:
            kept = self._seen.get(attempt.engine)
            if kept is None:  # a deque made only for a new engine (setdefault's default was one per attempt)
                kept = self._seen[attempt.engine] = deque(maxlen=self._window)
            kept.append(seen)

    def summary(self) -> dict[str, RecentEngine]:
        """Every engine with attempts, by name."""
        with self._lock:
            copies = {name: list(seen) for name, seen in self._seen.items()}
        return {name: _summed(seen) for name, seen in copies.items() if seen}


def _summed(seen: list[_Seen]) -> RecentEngine:
    total = len(seen)
    asked = sorted(item.latency_ms for item in seen if not item.cached and item.code not in RATE_CODES)
    return RecentEngine(
        attempts=total,
        ok_share=_share(seen, lambda item: item.ok),
        captcha_share=_share(seen, lambda item: item.code in CAPTCHA_CODES),
        rate_limited_share=_share(seen, lambda item: item.code in RATE_CODES),
        cached_share=_share(seen, lambda item: item.cached),
        p50_ms=round(statistics.median(asked), 1) if asked else None,
        p90_ms=round(_percentile(asked, 0.9), 1) if asked else None,
    )


def _share(items: list[_Seen], test: Callable[[_Seen], bool]) -> float:
    return round(sum(1 for item in items if test(item)) / len(items), 3)


def _percentile(ordered: list[float], q: float) -> float:
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]
