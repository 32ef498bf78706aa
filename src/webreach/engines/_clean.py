"""Hits made safe to store and show, whatever the engine's answer held: the last step of Engine.handle.

- A hit whose URL is no usable address is dropped: a lone surrogate (a JSON answer's "\\ud800" escape) or a
  NUL/control character cannot be stored by the session store or written as UTF-8, and escaping it would
  name another page; a URL no parser accepts (a malformed IPv6 host) or that is not http(s) is no link.
- Text fields keep their text with lone surrogates replaced by U+FFFD and control characters by spaces.
- Dates are clamped: more than MAX_DATE_CHARS characters is no date; an ISO date that is not a calendar date,
  or lies more than a day past the engine's clock, is dropped (a date is optional; a wrong one misleads). A
  relative age ("3 days ago", "3天前", "昨天") becomes the ISO day it names, counted from the engine's clock when
  the answer was read (issue 41: ISO dates everywhere), so a cached answer keeps the day it was given.
Most hits pass unchanged; each string costs one regex search.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime, timedelta
from urllib.parse import urlsplit

from webreach.engines._dates import relative_date
from webreach.models import Hit

MAX_DATE_CHARS = 64
# lone surrogates and C0/DEL/C1 control characters (tab, newline and carriage return are whitespace to hit())
UNSAFE = re.compile(r"[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")
SURROGATE = re.compile(r"[\ud800-\udfff]")
ISO_DAY = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
TEXT_FIELDS = ("title", "snippet", "display_url", "source")


def clean_hits(hits: list[Hit], *, now: float) -> list[Hit]:
    """`hits` without unusable URLs, with text fields and dates made safe (see the module docstring)."""
    latest = (datetime.fromtimestamp(now, UTC) + timedelta(days=1)).date()
    cleaned: list[Hit] = []
    for hit in hits:
        if not usable_url(hit.url) or (hit.image is not None and not usable_url(hit.image.image_url)):
            continue
        update: dict[str, str | None] = {}
        for name in TEXT_FIELDS:
            value = getattr(hit, name)
            if value and UNSAFE.search(value):
                update[name] = " ".join(SURROGATE.sub("\ufffd", value).translate(CONTROL_TO_SPACE).split())
        if hit.date is not None and (resolved := relative_date(hit.date, now)) is not None:
            update["date"] = resolved
        elif hit.date is not None and not _plausible_date(hit.date, latest):
            update["date"] = None
        cleaned.append(hit.model_copy(update=update) if update else hit)
    return cleaned


def usable_url(url: str) -> bool:
    """Whether `url` is an absolute http(s) URL without lone surrogates or control characters that parses."""
    if UNSAFE.search(url) or not url.startswith(("http://", "https://")):
        return False
    try:
        return bool(urlsplit(url).netloc)
    except ValueError:  # "http://[::1/": an IPv6 host urlsplit refuses
        return False


def _plausible_date(text: str, latest: date) -> bool:
    if len(text) > MAX_DATE_CHARS or UNSAFE.search(text):
        return False
    match = ISO_DAY.match(text)
    if match is None:
        return True  # "3 days ago", "6/10/2016": kept as shown
    try:
        day = date(int(match[1]), int(match[2]), int(match[3]))
    except ValueError:
        return False
    return day <= latest


CONTROL_TO_SPACE = {code: " " for code in (*range(0x20), 0x7F, *range(0x80, 0xA0))}
