"""Retry-After: delta seconds or an HTTP date, clamped to a day, anything else not given (property-based too:
300 examples, WEBREACH_FUZZ=long 3,000)."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from webreach.retry_after import MAX_RETRY_AFTER, retry_after_seconds

NOW = 1445412420.0  # Wed, 21 Oct 2015 07:27:00 GMT
IN_A_MINUTE = "Wed, 21 Oct 2015 07:28:00 GMT"


def test_delta_seconds() -> None:
    assert retry_after_seconds({"retry-after": " 30 "}, now=None) == 30.0
    assert retry_after_seconds({"retry-after": "0"}, now=NOW) == 0.0


def test_a_date_is_measured_against_the_servers_date_header_first() -> None:
    served = {"retry-after": IN_A_MINUTE, "date": "Wed, 21 Oct 2015 07:27:30 GMT"}
    assert retry_after_seconds(served, now=0.0) == 30.0  # our clock does not enter
    assert retry_after_seconds({"retry-after": IN_A_MINUTE}, now=NOW) == 60.0
    assert retry_after_seconds({"retry-after": IN_A_MINUTE}, now=NOW + 3600) == 0.0  # already past
    assert retry_after_seconds({"retry-after": IN_A_MINUTE}, now=None) is None  # nothing to measure against


def test_long_waits_are_clamped_to_a_day() -> None:
    assert retry_after_seconds({"retry-after": "99999999"}, now=NOW) == MAX_RETRY_AFTER == 86400.0
    assert retry_after_seconds({"retry-after": "Fri, 01 Jan 2100 00:00:00 GMT"}, now=NOW) == MAX_RETRY_AFTER


@pytest.mark.parametrize("value", ["", "²", "١٢", "1.5", "-5", "soon", "nan", "inf", "9" * 400])
def test_anything_else_is_not_given(value: str) -> None:
    assert retry_after_seconds({"retry-after": value}, now=NOW) is None


def test_no_header_is_not_given() -> None:
    assert retry_after_seconds({}, now=NOW) is None


def test_a_delta_longer_than_python_reads_is_not_given() -> None:
    # int() refuses more than 4,300 digits (ValueError); no float holds more than 308
    assert retry_after_seconds({"retry-after": "9" * 5000}, now=NOW) is None
    assert retry_after_seconds({"retry-after": "0" * 5000 + "7"}, now=NOW) == 7.0  # leading zeros are no size


@pytest.mark.parametrize(
    "value",
    [
        "Mon, 01 Jan 99999999999 00:00:00 GMT",  # past what the parser holds
        "Mon, 01 Jan 10000 00:00:00 GMT",  # past datetime's year 9999
        "Mon, 01 Jan 2001 00:00:00 +9999",  # an offset over a day
    ],
)
def test_dates_no_datetime_holds_are_not_given(value: str) -> None:
    assert retry_after_seconds({"retry-after": value}, now=NOW) is None
    assert retry_after_seconds({"retry-after": IN_A_MINUTE, "date": value}, now=NOW) == 60.0  # falls back to now


EXAMPLES = 3000 if os.environ.get("WEBREACH_FUZZ") == "long" else 300
FUZZ = settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
_DAYS = st.sampled_from(["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun", "Xyz"])
_MONTHS = st.sampled_from(["Jan", "Feb", "Jun", "Dec", "Foo"])
_HTTP_DATES = st.builds(
    "{}, {:02d} {} {} {:02d}:{:02d}:{:02d} {}".format,
    _DAYS,
    st.integers(0, 99),
    _MONTHS,
    st.integers(-10, 10**12),
    st.integers(0, 99),
    st.integers(0, 99),
    st.integers(0, 99),
    st.one_of(st.sampled_from(["GMT", "UTC", "-0000", "EST", "Z", ""]), st.from_regex(r"[+-][0-9]{4}", fullmatch=True)),
)
_VALUES = st.one_of(
    st.text(max_size=40),
    st.text(alphabet="0123456789", min_size=1, max_size=6000),
    st.text(alphabet="0123456789²١ \t.-+e", max_size=50),
    _HTTP_DATES,
)


@FUZZ
@given(value=_VALUES, date=st.one_of(st.none(), _VALUES), now=st.one_of(st.none(), st.floats(allow_nan=False)))
def test_any_value_is_seconds_within_a_day_or_not_given(value: str, date: str | None, now: float | None) -> None:
    headers = {"retry-after": value} if date is None else {"retry-after": value, "date": date}
    seconds = retry_after_seconds(headers, now=now)
    assert seconds is None or 0.0 <= seconds <= MAX_RETRY_AFTER
