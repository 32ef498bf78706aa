"""Retry-After, read one way everywhere: how many seconds an upstream asks us to wait, or None.

Both forms of RFC 9110 are read. Delta seconds must be ASCII digits only ('²' and '١' are digits to
str.isdigit, not to HTTP). An HTTP date is measured against the response's own Date header when it has a
readable one (so a skewed local clock never enters the arithmetic), else against `now`, the caller's clock;
a date in the past means 0. A wait longer than MAX_RETRY_AFTER is clamped to it: one day is the longest any
provider asks for (a daily quota), and the circuit breaker never suspends an engine longer either. A value
that is no finite number (a delta of over MAX_DELTA_DIGITS digits, which no float holds, and which int() would
refuse past 4,300 digits anyway) counts as not given, like a malformed one; so does a date no datetime holds.
"""

from __future__ import annotations

import email.utils
import math
from collections.abc import Mapping
from datetime import UTC

MAX_RETRY_AFTER = 24 * 3600.0
MAX_DELTA_DIGITS = 308  # the most digits a float holds; longer is no finite number


def retry_after_seconds(headers: Mapping[str, str], *, now: float | None) -> float | None:
    """The Retry-After of `headers` in seconds from now, within 0..MAX_RETRY_AFTER, or None when absent or unusable.

    `now` (epoch seconds) is only needed for a date without a Date header; None leaves such a value unread.
    """
    value = (headers.get("retry-after") or "").strip()
    if not value:
        return None
    if value.isascii() and value.isdigit():
        digits = value.lstrip("0") or "0"
        if len(digits) > MAX_DELTA_DIGITS:
            return None
        seconds = float(int(digits))
    else:
        moment = _http_date(value)
        reference = _http_date(headers.get("date") or "")
        start = reference if reference is not None else now
        if moment is None or start is None:
            return None
        seconds = max(0.0, moment - start)
    return min(seconds, MAX_RETRY_AFTER) if math.isfinite(seconds) else None


def _http_date(text: str) -> float | None:
    """The epoch seconds of HTTP date `text`, or None when it is none or no datetime holds it."""
    try:
        moment = email.utils.parsedate_to_datetime(text)
        # "-0000" (and obsolete zone names) parse as naive: HTTP dates are GMT
        return (moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)).timestamp()
    except (TypeError, ValueError, IndexError, OverflowError):
        # OverflowError: a year past what the parser or datetime holds (as given, or once its zone is applied)
        return None
