"""Dates as result pages and APIs show them ("Jul 16, 2025", "16.07.2025", "3 days ago", "2025年7月16日"), made ISO.

One rule for every engine: an absolute date becomes YYYY-MM-DD; a date we cannot pin down without a clock or a
market (relative ages, 6/10/2016) is kept as shown; text that is not a date at all is None (or, for an API
field that is meant to hold a date, kept as given).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import date
from types import MappingProxyType

MONTH_NAMES = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
MONTHS: Mapping[str, int] = MappingProxyType({name: number for number, name in enumerate(MONTH_NAMES, 1)})
NAMED_MDY = re.compile(r"([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})")  # Jul 16, 2025 / July 16, 2025
NAMED_DMY = re.compile(r"(\d{1,2}) ([A-Za-z]{3})[a-z]*\.? (\d{4})")  # 16 Jul 2025 / 16 July 2025
ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?")
DOTTED = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})")
SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
RELATIVE_AGE = re.compile(r"\d+\s+(?:second|minute|hour|day|week|month|year)s?\s+ago", re.IGNORECASE)
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
    if RELATIVE_AGE.fullmatch(shown):
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
