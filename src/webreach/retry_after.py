"""Retry-After, read one way everywhere: how many seconds an upstream asks us to wait, or None.

Both forms of RFC 9110 are read. Delta seconds must be ASCII digits only ('²' and '١' are digits to
str.isdigit, not to HTTP). An HTTP date is measured against the response's own Date header when it has a
readable one (so a skewed local clock never enters the arithmetic), else against `now`, the caller's clock;
a date in the past means 0. A wait longer than MAX_RETRY_AFTER is clamped to it: one day is the longest any
provider asks for (a daily quota), and the circuit breaker never suspends an engine longer either. A value
that is no finite number (a 400-digit delta, which no float holds) counts as not given, like a malformed one.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Mapping
from datetime import UTC, datetime

MAX_RETRY_AFTER = 24 * 3600.0


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None) -> float | None:
    """The Retry-After of `headers` in seconds from now, within 0..MAX_RETRY_AFTER, or None when absent or unusable.

    `now` (epoch seconds) is only needed for a date without a Date header; None leaves such a value unread.
    """
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        try:
            seconds = float(int(value))
        except OverflowError:
            return None
    else:
        moment = _http_date(value)
        reference = _http_date(headers.get("date") or "")
        start = reference.timestamp() if reference is not None else now
        if moment is None or start is None:
            return None
        seconds = max(0.0, moment.timestamp() - start)
    return min(seconds, MAX_RETRY_AFTER) if math.isfinite(seconds) else None


def _http_date(text: str) -> datetime | None:
    try:
        moment = email.utils.parsedate_to_datetime(text)
    except (TypeError, ValueError, IndexError):
        return None
    # "-0000" (and obsolete zone names) parse as naive: HTTP dates are GMT
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)
