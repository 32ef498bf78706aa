"""The shared date reading of engines/_dates.py: shown dates, API date fields, CJK dates and snippet prefixes."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from webreach.engines._clean import clean_hits
from webreach.engines._dates import (
    api_date,
    numeric_date,
    relative_date,
    shown_date,
    split_dot_date,
    split_ellipsis_date,
    split_shown_date,
)
from webreach.models import Hit


@pytest.mark.parametrize(
    ("shown", "expected"),
    [
        ("Jul 16, 2025", "2025-07-16"),
        ("July 16, 2025", "2025-07-16"),
        ("16 Jul 2025", "2025-07-16"),
        ("2 September 2014", "2014-09-02"),
        ("2025-07-16", "2025-07-16"),
        ("18.03.2013", "2013-03-18"),
        ("24/1/2013", "2013-01-24"),
        ("6/10/2016", "6/10/2016"),  # day or month first depends on the market
        ("2 days ago", "2 days ago"),
        ("5 Hours ago", "5 Hours ago"),
        ("Feb 30, 2024", None),
        ("8/10 (87 votos)", None),
        ("Step 8", None),
    ],
)
def test_shown_dates_become_iso_when_their_order_is_certain(shown: str, expected: str | None) -> None:
    assert shown_date(shown) == expected


def test_api_date_fields_become_iso_only_when_written_with_a_month_name() -> None:
    assert api_date("Jan 29, 2023") == "2023-01-29"
    assert api_date("December 27, 2024") == "2024-12-27"
    assert api_date("2024-01-05T10:00:00.000Z") == "2024-01-05T10:00:00.000Z"  # a timestamp keeps its time
    assert api_date("3 hours ago") == "3 hours ago"
    assert api_date("") is None
    assert api_date(None) is None


def test_numeric_dates_with_cjk_or_numeric_separators() -> None:
    assert numeric_date("2024年3月5日") == "2024-03-05"
    assert numeric_date("www.example.com 2023-7-1") == "2023-07-01"
    assert numeric_date("3天前") is None


def test_snippet_date_prefixes_split_off() -> None:
    assert split_dot_date("Mar 13, 2026 · Learn it.") == ("2026-03-13", "Learn it.")
    assert split_dot_date("Step 8 · Intermediate") == (None, "Step 8 · Intermediate")
    assert split_ellipsis_date("Mar 17, 2023 ... Semantic Kernel (SK) is") == ("2023-03-17", "Semantic Kernel (SK) is")
    assert split_ellipsis_date("2 Sep 2014 ...  the\n rest") == ("2014-09-02", "the rest")
    assert split_ellipsis_date("5 days ago ... news") == ("5 days ago", "news")
    assert split_ellipsis_date("Overview ... no date") == (None, "Overview ... no date")


@pytest.mark.parametrize(
    ("snippet", "shown", "marks", "expected"),
    [
        # Brave prints the separator inside the date element, Google after it
        ("July 30, 2024 - This tutorial", "July 30, 2024 -", "-–—", ("2024-07-30", "This tutorial")),
        ("Jul 22, 2022 — The answer", "Jul 22, 2022", "—-·", ("2022-07-22", "The answer")),
        ("2 days ago - Fresh news", "2 days ago -", "-–—", ("2 days ago", "Fresh news")),
        # a date shown elsewhere than in front of the snippet is still the hit's date
        ("No date in front", "Mar 2, 2023", "—-·", ("2023-03-02", "No date in front")),
        ("Step 8 - Intermediate", "Step 8 -", "-–—", (None, "Step 8 - Intermediate")),
        ("Just a snippet", "", "—-·", (None, "Just a snippet")),
    ],
)
def test_a_shown_date_in_front_of_the_snippet_moves_to_the_date(
    snippet: str, shown: str, marks: str, expected: tuple[str | None, str]
) -> None:
    assert split_shown_date(snippet, shown, marks) == expected


@pytest.mark.parametrize(
    ("shown", "expected"),
    [
        ("3 days ago", "2026-03-28"),
        ("5 Hours ago", "2026-03-30"),  # 01:00 UTC: five hours back is the day before
        ("an hour ago", "2026-03-31"),
        ("30 minutes ago", "2026-03-31"),
        ("1 week ago", "2026-03-24"),
        ("1 month ago", "2026-02-28"),  # 31 March minus a calendar month: the last day of February
        ("2 years ago", "2024-03-31"),
        ("yesterday", "2026-03-30"),
        ("3天前", "2026-03-28"),
        ("5小时前", "2026-03-30"),
        ("56分钟前", "2026-03-31"),
        ("2 个月前", "2026-01-31"),
        ("1星期前", "2026-03-24"),
        ("昨天 14:20", "2026-03-30"),
        ("前天", "2026-03-29"),
        ("刚刚", "2026-03-31"),
        ("Step 8", None),
        ("2026-03-01", None),
    ],
)
def test_relative_ages_resolve_against_the_moment_the_engine_answered(shown: str, expected: str | None) -> None:
    """Issue 41: ISO dates everywhere, relative and Chinese ages resolved against the response's date."""
    answered = datetime(2026, 3, 31, 1, 0, tzinfo=UTC).timestamp()
    assert relative_date(shown, answered) == expected


def test_a_relative_age_in_a_hit_becomes_its_day_and_a_cached_answer_keeps_it() -> None:
    answered = datetime(2026, 3, 31, 12, 0, tzinfo=UTC).timestamp()
    hit = Hit(rank=1, title="t", url="https://a.example/", engine="bing", date="2 days ago")
    (cleaned,) = clean_hits([hit], now=answered)
    assert cleaned.date == "2026-03-29"
    (again,) = clean_hits([cleaned], now=answered + 10 * 86400)  # read from the cache ten days later
    assert again.date == "2026-03-29"
