"""Retry-After: delta seconds or an HTTP date, clamped to a day, anything else not given."""

from __future__ import annotations

import pytest

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
