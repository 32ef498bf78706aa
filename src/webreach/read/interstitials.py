"""Interstitials: the pages that only send a reader on, resolved hop by hop through the guarded fetcher.

Agents meet them from search results: Baidu's `/link?url=` (a 302, or a 200 page carrying the target in
`window.location.replace("...")` and in `<noscript><meta http-equiv="refresh" content="0;URL='...'">`), meta
refresh pages, and tiny pages whose script sets `location.href` / calls `location.replace` or `assign`.

A page counts as an interstitial only when it is HTML, small (at most 64 KiB), carries one of those redirects
to another URL, and shows almost no text of its own (at most 600 visible characters): an article that also has
a refresh tag or a script mentioning `location` is content, not a door. Each hop is an ordinary `Fetcher.fetch`,
so the guard checks it and its own redirects again; at most `max_hops` (3) interstitials are followed, and a
target seen before is a loop. Both end in TooManyRedirectsError.

Scanning uses regular expressions over the decoded head of the page (no HTML parser is needed for this, and
none is allowed outside the extractor and engines).
"""

from __future__ import annotations

import codecs
import contextlib
import html
import re
from dataclasses import replace

import httpx

from webreach.errors import TooManyRedirectsError
from webreach.net.fetcher import REDIRECT_STATUSES, Fetched, Fetcher, redirect_target
from webreach.net.guard import mask_userinfo, parse_url

MAX_HOPS = 3
MAX_PAGE_BYTES = 64 * 1024
MAX_VISIBLE_CHARS = 600
MAX_REFRESH_DELAY = 30.0

_HTML_TYPES = frozenset({"text/html", "application/xhtml+xml", ""})
_META = re.compile(r"<meta\b[^>]*>", re.IGNORECASE)
_ATTR = re.compile(r"""([a-zA-Z-]+)\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'>]+))""")
_REFRESH_URL = re.compile(r"""^\s*(\d+(?:\.\d*)?)?\s*[;,]?\s*(?:url\s*=\s*)?(.*)$""", re.IGNORECASE | re.DOTALL)
_JS_TARGET = re.compile(
    r"""(?:(?:window|document|top|self)\s*\.\s*)?location\s*(?:\.\s*href\s*)?=\s*(["'])((?:\\.|(?!\1).)*)\1"""
    r"""|(?:(?:window|document|top|self)\s*\.\s*)?location\s*\.\s*(?:replace|assign)\s*\(\s*(["'])((?:\\.|(?!\3).)*)\3""",
)
_INVISIBLE = re.compile(r"<(script|style|noscript|template)\b.*?</\1\s*>|<!--.*?-->", re.IGNORECASE | re.DOTALL)
_TAG = re.compile(r"<[^>]*>")
_JS_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{2}|u[0-9a-fA-F]{4}|.)")
_CHARSET = re.compile(r"charset\s*=\s*[\"']?([A-Za-z0-9_.:-]+)", re.IGNORECASE)


def _text(fetched: Fetched) -> str:
    """The page decoded well enough to find a URL (declared charset when Python knows it, else UTF-8)."""
    match = _CHARSET.search(fetched.content_type) or _CHARSET.search(fetched.body[:2048].decode("ascii", "replace"))
    encoding = "utf-8"
    if match:
        with contextlib.suppress(LookupError):
            encoding = codecs.lookup(match.group(1)).name
    return fetched.body.decode(encoding, errors="replace")


def _refresh_target(page: str) -> str | None:
    for tag in _META.findall(page):
        attrs = {
            m.group(1).lower(): html.unescape(m.group(2) or m.group(3) or m.group(4) or "") for m in _ATTR.finditer(tag)
        }
        if attrs.get("http-equiv", "").strip().lower() != "refresh":
            continue
        found = _REFRESH_URL.match(attrs.get("content", ""))
        if not found or not found.group(2).strip():
            continue  # a plain reload timer
        if found.group(1) and float(found.group(1)) > MAX_REFRESH_DELAY:
            continue
        return found.group(2).strip().strip("'\"").strip()
    return None


def _unescape_js(value: str) -> str:
    """A JavaScript string literal's escapes (\\/, \\xNN, \\uNNNN) undone, so the URL reads as a browser sees it."""
    return _JS_ESCAPE.sub(lambda m: chr(int(m.group(1)[1:], 16)) if len(m.group(1)) > 1 else m.group(1), value)


def _script_target(page: str) -> str | None:
    for script in re.findall(r"<script\b[^>]*>(.*?)</script\s*>", page, re.IGNORECASE | re.DOTALL):
        found = _JS_TARGET.search(script)
        if found:
            return _unescape_js(found.group(2) if found.group(2) is not None else found.group(4)).strip()
    return None


def visible_chars(page: str) -> int:
    """How much text a reader would see (scripts, styles, noscript and comments dropped)."""
    return len(" ".join(html.unescape(_TAG.sub(" ", _INVISIBLE.sub(" ", page))).split()))


def interstitial_target(fetched: Fetched) -> str | None:
    """Where this page sends the reader, when it is an interstitial; None for real content."""
    if fetched.media_type not in _HTML_TYPES or not fetched.body or len(fetched.body) > MAX_PAGE_BYTES:
        return None
    page = _text(fetched)
    found = _refresh_target(page) or _script_target(page)
    if not found or visible_chars(page) > MAX_VISIBLE_CHARS:
        return None
    try:
        target = httpx.URL(fetched.final_url).join(found).copy_with(fragment=None)
    except (httpx.InvalidURL, UnicodeError):
        return None
    if target.scheme not in ("http", "https") or str(target) == fetched.final_url:
        return None  # javascript:, data: and self-refreshes are not doors
    return str(target)


class Interstitials:
    """Follows interstitial pages, and resolves redirect links (Baidu /link?url=) without reading the target."""

    def __init__(self, fetcher: Fetcher, *, max_hops: int = MAX_HOPS) -> None:
        self.fetcher = fetcher
        self.max_hops = max_hops

    async def follow(self, fetched: Fetched, *, raise_for_status: bool = False) -> Fetched:
        """The page behind any interstitials, keeping `url` and the whole chain in `redirects`."""
        chain = list(fetched.redirects)
        seen = {fetched.url, fetched.final_url}
        hops = 0
        while (target := interstitial_target(fetched)) is not None:
            if target in seen or hops >= self.max_hops:
                shown = mask_userinfo(fetched.url)  # messages never repeat a user:password@
                raise TooManyRedirectsError(
                    f"{shown} leads through more than {self.max_hops} interstitial pages or loops.", url=shown
                )
            hops += 1
            seen.add(target)
            following = await self.fetcher.fetch(target, raise_for_status=raise_for_status)
            chain += [target, *following.redirects]
            seen.update(following.redirects)
            fetched = replace(following, url=fetched.url, redirects=chain)
        return fetched

    async def resolve_link(self, url: str) -> str:
        """The URL a redirect link points to (one request, not followed; the target is checked by the guard).

        For a 3xx the Location; for a 200 interstitial the URL its script or meta refresh names; otherwise `url`
        itself (it was not a redirect link).
        """
        fetched = await self.fetcher.fetch(url, follow_redirects=False)
        target: str | None = None
        if fetched.status in REDIRECT_STATUSES and fetched.headers.get("location"):
            target = str(redirect_target(fetched.final_url, fetched.headers["location"], url))
        elif fetched.status == 200:
            target = interstitial_target(fetched)
        if target is None:
            return str(parse_url(url).url)
        approved = await self.fetcher.guard.check(target)
        return str(approved.url)
