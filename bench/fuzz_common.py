"""What bench/fuzz.py and its door runner share: the case time limits, a target's row of counts, peak RSS."""

from __future__ import annotations

import resource
from collections import Counter
from dataclasses import dataclass, field

SLOW = 0.5
LIMIT = 2.0  # the limit for one case; an in-process case over it is timed a second time


@dataclass
class Row:
    """One target's counts."""

    target: str
    cases: int = 0
    typed: int = 0
    untyped: int = 0
    slow: int = 0
    max_seconds: float = 0.0
    settled_max: float = 0.0  # the longest case once each case over LIMIT was timed again (the shorter time)
    retimed: int = 0
    peak_rss_mb: float = 0.0
    untyped_kinds: Counter[str] = field(default_factory=Counter)
    note: str = ""

    def record(self, seconds: float, outcome: str, kind: str = "", settled: float | None = None) -> None:
        self.cases += 1
        self.max_seconds = max(self.max_seconds, seconds)
        self.settled_max = max(self.settled_max, seconds if settled is None else settled)
        self.slow += seconds > SLOW
        if outcome == "typed":
            self.typed += 1
        elif outcome == "untyped":
            self.untyped += 1
            self.untyped_kinds[kind] += 1


def own_peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
