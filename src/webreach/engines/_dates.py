"""Dates as result pages and APIs show them ("Jul 16, 2025", "16.07.2025", "3 days ago", "2025年7月16日"), made ISO.

One rule for every engine: an absolute date becomes YYYY-MM-DD; a date we cannot pin down without a market
(6/10/2016) is kept as shown; text that is not a date at all is None (or, for an API field that is meant to hold
a date, kept as given). Relative ages ("3 days ago", "3天前", "昨天") are kept by the parsers and resolved by
relative_date against the day the engine answered (engines/_clean.py, with the engine's clock): months and years
count back by calendar months, so "2 months ago" is the same day two months before.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, date, datetime, timedelta
from types import MappingProxyType

MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTHS: Mapping[str, int] = MappingProxyType({name: number for number, name in enumerate(MONTH_NAMES, 1)})
NAMED_MDY = re.compile(r"([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})")  # Jul 16, 2025 / July 16, 2025
NAMED_DMY = re.compile(r"(\d{1,2}) ([A-Za-z]{3})[a-z]*\.? (\d{4})")  # 16 Jul 2025 / 16 July 2025
ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?")
DOTTED = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})")
SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
# "3 days ago", "an hour ago", "3天前", "2 个月前", "1星期前" (a number, or a/an/one, then the unit)
ENGLISH_AGE = re.compile(r"(\d+|an?|one)\s*(second|sec|minute|min|hour|hr|day|week|month|year)s?\.?\s+ago", re.I)
CHINESE_AGE = re.compile(r"(\d+)\s*(秒|秒钟|分钟|分|小时|个小时|天|日|周|星期|个星期|个月|月|年)\s*前")
NAMED_DAYS: Mapping[str, int] = MappingProxyType(
    {"today": 0, "just now": 0, "yesterday": 1, "今天": 0, "刚刚": 0, "昨天": 1, "昨日": 1, "前天": 2}
)
UNIT_SECONDS: Mapping[str, int] = MappingProxyType(
    {"second": 1, "sec": 1, "minute": 60, "min": 60, "hour": 3600, "hr": 3600, "day": 86400, "week": 604800,
     "秒": 1, "秒钟": 1, "分钟": 60, "分": 60, "小时": 3600, "个小时": 3600, "天": 86400, "日": 86400,
     "周": 604800, "星期": 604800, "个星期": 604800}
)  # fmt: skip
UNIT_MONTHS: Mapping[str, int] = MappingProxyType({"month": 1, "year": 12, "个月": 1, "月": 1, "年": 12})
# year-month-day with CJK or numeric separators: 2025年7月16日, 2025-07-16, 2025.7.16, 2025/07/16
NUMERIC_YMD = re.compile(r"(\d{4})[年\-./](\d{1,2})[月\-./](\d{1,2})日?")
# "<date> · <snippet>" (Bing, and Yahoo serving Bing) and "<date> ... <snippet>" (Google, Startpage, Google CSE)
DOT_PREFIX = re.compile(r"(?P<date>[^·]{4,24}?)\s*·\s+(?P<rest>.*)", re.S)
ELLIPSIS_PREFIX = re.compile(r"(?P<date>.{4,24}?) \.\.\. (?P<rest>.*)", re.S)


def named_date(text: str) -> str | None:
    """ISO date of a date written with a month name ("Jan 5, 2024", "5 January 2024"), else None."""
    shown = " ".join(text.split())
    if m := NAMED_MDY.fullmatch(shown):
        return _iso(m[3], MONTHS.get(m[1].lower(), 0), m[2])
    if m := NAMED_DMY.fullmatch(shown):
        return _iso(m[3], MONTHS.get(m[2].lower(), 0), m[1])
    return None


def shown_date(text: str) -> str | None:
    """An ISO date from a page's shown date; the text itself when it is a date we cannot pin down (relative,
    or day/month order unknown); None when it is not a date at all."""
    shown = " ".join(text.split())
    if ENGLISH_AGE.fullmatch(shown) or CHINESE_AGE.fullmatch(shown):
        return shown
    if named := named_date(shown):
        return named
    if m := ISO.fullmatch(shown):
        return _iso(m[1], int(m[2]), m[3])
    if m := DOTTED.fullmatch(shown):
        return _iso(m[3], int(m[2]), m[1])  # dotted dates are day-first wherever they are printed
    if m := SLASHED.fullmatch(shown):
        first, second = int(m[1]), int(m[2])
        if first <= 12 and second <= 12:
            return shown  # 6/10/2016: the market decides the order, and we cannot know it here
        return _iso(m[3], first, m[2]) if second > 12 else _iso(m[3], second, m[1])
    return None


def api_date(text: str | None) -> str | None:
    """A date field of an API answer: ISO when it is a date with a month name ("Jan 29, 2023"); timestamps,
    relative ages ("3 hours ago") and anything else stay as given."""
    if not text or not isinstance(text, str):  # a number or a list where a date belongs is no date
        return None
    return named_date(text) or text


def numeric_date(text: str) -> str | None:
    """The first year-month-day date in `text` (2025年7月16日, 2025-07-16, 2025.7.16) as ISO, else None."""
    match = NUMERIC_YMD.search(text)
    return ymd(match) if match else None


def ymd(match: re.Match[str]) -> str:
    """YYYY-MM-DD from a NUMERIC_YMD match."""
    year, month, day = (int(part) for part in match.groups())
    return f"{year:04d}-{month:02d}-{day:02d}"


def split_dot_date(snippet: str) -> tuple[str | None, str]:
    """Split a "<date> · <snippet>" caption into (date, snippet); (None, snippet) when it starts with no date."""
    return _split(DOT_PREFIX, snippet)


def split_ellipsis_date(snippet: str) -> tuple[str | None, str]:
    """Split a "<date> ... <snippet>" snippet into (date, snippet); (None, snippet) when it starts with no date."""
    return _split(ELLIPSIS_PREFIX, snippet)


def split_shown_date(snippet: str, shown: str, marks: str) -> tuple[str | None, str]:
    """Where a page prints the date (`shown`, maybe ending in one of the separator `marks`: "Jul 22, 2022 —") in
    front of the snippet: (date, snippet with the shown text and separators cut from its start); the date is ISO
    when absolute (see shown_date), and (None, snippet) when `shown` is no date."""
    date = shown_date(shown.rstrip(marks).strip()) if shown else None
    if date and snippet.startswith(shown):
        snippet = snippet[len(shown) :].lstrip(" " + marks)
    return date, snippet


def _split(pattern: re.Pattern[str], snippet: str) -> tuple[str | None, str]:
    match = pattern.fullmatch(" ".join(snippet.split()))
    if match is None:
        return None, snippet
    when = shown_date(match["date"])
    return (when, match["rest"]) if when else (None, snippet)


def _iso(year: str, month: int, day: str) -> str | None:
    try:
        return date(int(year), month, int(day)).isoformat()
    except ValueError:
        return None


def relative_date(text: str, now: float) -> str | None:
    """The ISO day (UTC) a relative age ("3 days ago", "5小时前", "昨天 14:20") names, counted back from the moment
    `now` (a timestamp); None when `text` is no relative age."""
    today = datetime.fromtimestamp(now, UTC).date()
    shown = " ".join(text.split()).lower()
    for name, days in NAMED_DAYS.items():
        if shown == name or shown.startswith(name + " "):  # 昨天 14:20: the day is what a date keeps
            return (today - timedelta(days=days)).isoformat()
    match = ENGLISH_AGE.fullmatch(shown) or CHINESE_AGE.fullmatch(shown)
    if match is None:
        return None
    count = int(match[1]) if match[1].isdigit() else 1
    unit = match[2].lower()
    if unit in UNIT_MONTHS:
        return _months_back(today, count * UNIT_MONTHS[unit])
    crossed = int(now // 86400) - int((now - count * UNIT_SECONDS[unit]) // 86400)  # UTC midnights passed
    return (today - timedelta(days=crossed)).isoformat()


def _months_back(today: date, months: int) -> str | None:
    index = today.year * 12 + today.month - 1 - months
    year, month = divmod(index, 12)
    if year < 1:
        return None
    for day in range(today.day, 27, -1):  # 31 March minus a month is 28/29 February
        try:
            return date(year, month + 1, day).isoformat()
        except ValueError:
            continue
    return date(year, month + 1, today.day).isoformat()  # days 1-27 exist in every month
