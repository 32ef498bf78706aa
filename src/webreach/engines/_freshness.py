"""Freshness as absolute times, for engines whose time filters take dates or timestamps instead of names.

Every function takes `now` (seconds since the epoch, from the engine's injected clock) so engines never read
the system clock and tests pin the values with a FakeClock.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType

from webreach.models import Freshness

DAY_SECONDS = 86_400
# a month back is at most 31 days, so "month" never cuts off the first days of a long month
FRESHNESS_DAYS: Mapping[Freshness, int] = MappingProxyType({"day": 1, "week": 7, "month": 31, "year": 365})
BING_NAMED_WINDOWS: Mapping[Freshness, str] = MappingProxyType({"day": "ez1", "week": "ez2", "month": "ez3"})


def window_start(freshness: Freshness, now: float) -> float:
    """Start of the freshness window that ends at `now` (both in seconds since the epoch)."""
    return now - FRESHNESS_DAYS[freshness] * DAY_SECONDS


def first_day(freshness: Freshness, now: float) -> date:
    """The UTC calendar day on which the freshness window ending at `now` starts."""
    return (datetime.fromtimestamp(now, UTC) - timedelta(days=FRESHNESS_DAYS[freshness])).date()


def baidu_gpc(freshness: Freshness, now: float) -> str:
    """Baidu's time filter: `stf=<from>,<to>|stftype=1` in Unix seconds (SearXNG's baidu.py; SerpApi's gpc)."""
    return f"stf={int(window_start(freshness, now))},{int(now)}|stftype=1"


def bing_filters(freshness: Freshness, now: float) -> str:
    """Bing's `filters`: ez1/ez2/ez3 name day/week/month; a year is a range of days since the epoch (ez5)."""
    if freshness in BING_NAMED_WINDOWS:
        return f'ex1:"{BING_NAMED_WINDOWS[freshness]}"'
    today = int(now // DAY_SECONDS)
    return f'ex1:"ez5_{today - FRESHNESS_DAYS[freshness]}_{today}"'
