"""Bing: Microsoft's web index, scraped from its HTML results page (www.bing.com/search, or cn.bing.com).

Decisions:
- Results are `#b_results > li.b_algo` (title `h2 a`, snippet the first `p` of `.b_caption`, display URL `cite`,
  site name `.tptt`); ads are `li.b_ad` and never match, and stray `/aclick` links are dropped too.
- Links are `/ck/a?...&u=a1<base64url>` click trackers on any Bing host; the target is decoded from `u`.
- Freshness uses `filters=ex1:"ez1|ez2|ez3"` (day/week/month). Bing's year filter is an explicit date range
  (`ez5_<from>_<to>` in days since the epoch) and engines have no clock, so "year" is reported unsupported.
- Market: `mkt=<lang>-<CC>` when both are known, else `setlang` / `cc` alone; options["market"] sets a default.
- China: options["host"] = "cn.bing.com" or options["market"] = "zh-CN", or a request with region "cn", uses
  https://cn.bing.com (same markup) unless a base_url is configured, which always wins.
- Blocks: a redirect to /turing/captcha/challenge, or a 200 page carrying Bing's challenge (`#b_captcha`, the
  "One last step" box with its Turnstile widget) is a CAPTCHA. `li.b_no` is the genuine no-results notice.
- The date line ("Jul 16, 2025 · ...") becomes an ISO date; Yahoo (which serves Bing's results) reuses the
  date helpers below.
"""

from __future__ import annotations

import base64
import binascii
import re
from datetime import date
from typing import ClassVar
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborHTMLParser, LexborNode

from webreach.config import EngineSettings
from webreach.engines._base import Engine, Tokens
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

CN_ORIGIN = "https://cn.bing.com"
FRESHNESS = {"day": 'ex1:"ez1"', "week": 'ex1:"ez2"', "month": 'ex1:"ez3"'}
CHALLENGE = (
    "#b_captcha, #turnstile-widget, div.captcha_header, form[action*='/turing/captcha'], iframe[src*='/turing/captcha']"
)
MONTHS = {
    m: i for i, m in enumerate(("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"), 1)
}
NAMED_MDY = re.compile(r"([A-Za-z]{3})[a-z]*\.? (\d{1,2}), (\d{4})")
NAMED_DMY = re.compile(r"(\d{1,2}) ([A-Za-z]{3})[a-z]*\.? (\d{4})")
ISO = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ].*)?")
DOTTED = re.compile(r"(\d{1,2})\.(\d{1,2})\.(\d{4})")
SLASHED = re.compile(r"(\d{1,2})/(\d{1,2})/(\d{4})")
RELATIVE = re.compile(r"\d+ (?:minute|hour|day|week|month|year)s? ago")
DATE_PREFIX = re.compile(r"(?P<date>[^·]{4,24}?)\s*·\s+(?P<rest>.*)", re.S)


class Bing(Engine):
    """Scrapes www.bing.com/search (or cn.bing.com)."""

    name = "bing"
    kind = "scraped"
    base_url = "https://www.bing.com"
    index = "bing"
    supports: ClassVar[frozenset[str]] = frozenset({"page", "site", "freshness", "language", "region", "safesearch"})
    rate_per_minute = 12.0

    def __init__(self, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0") -> None:
        super().__init__(settings, user_agent=user_agent)
        options = self.settings.options
        if not self.settings.base_url and (
            options.get("host") == "cn.bing.com" or options.get("market", "").lower() == "zh-cn"
        ):
            self.origin = CN_ORIGIN

    def unsupported(self, request: SearchRequest) -> tuple[str, ...]:
        missing = super().unsupported(request)
        if request.freshness == "year" and "freshness" not in missing:
            return (*missing, "freshness")
        return missing

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        query = f"{request.query} site:{request.site}" if request.site else request.query
        params = {"q": query, "count": str(request.limit), "adlt": request.safesearch}
        if request.page > 1:
            params["first"] = str((request.page - 1) * request.limit + 1)
            params["FORM"] = "PERE"
        if request.freshness in FRESHNESS:
            params["filters"] = FRESHNESS[request.freshness]
        language, region = self._locale(request)
        headers = self.browser_headers()
        if language and region:
            market = f"{language}-{region.upper()}"
            params.update(mkt=market, setlang=language, cc=region.upper())
            headers["Accept-Language"] = f"{market},{language};q=0.9"
            headers["Cookie"] = f"_EDGE_S=mkt={market.lower()}&ui={language}; _EDGE_CD=m={market.lower()}"
        elif language:
            params["setlang"] = language
            headers["Accept-Language"] = f"{language},en;q=0.5"
        elif region:
            params["cc"] = region.upper()
        return httpx.Request("GET", self._search_url(request), params=params, headers=headers)

    def check_redirect(self, response: httpx.Response) -> None:
        if "/turing/captcha" in response.headers.get("location", ""):
            raise BlockedError(
                "redirected to its CAPTCHA challenge instead of results", kind="captcha", engine=self.name
            )
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        tree = LexborHTMLParser(response.text)
        if tree.css_first(CHALLENGE) is not None:
            raise BlockedError("answered with its 'One last step' challenge page", kind="captcha", engine=self.name)
        page_origin = _origin_of(response, self.origin)
        hits: list[Hit] = []
        for item in tree.css("#b_results > li.b_algo"):
            hit = self._hit(item, len(hits) + 1, page_origin)
            if hit is not None:
                hits.append(hit)
        if not hits and tree.css_first("#b_results li.b_no") is None:
            raise self.parse_error("no b_algo results and no no-results notice on the page")
        return hits

    def _hit(self, item: LexborNode, rank: int, page_origin: str) -> Hit | None:
        link = item.css_first("h2 a")
        href = (link.attributes.get("href") or "").strip() if link is not None else ""
        if link is None or not href or not link.text().strip():
            return None
        url = decode_click_url(href, page_origin)
        if "/aclick?" in url:
            return None
        caption = item.css_first(".b_caption p") or item.css_first("p")
        shown = item.css_first("span.news_dt")
        snippet = caption.text() if caption is not None else ""
        when, snippet = split_date_prefix(snippet)
        if shown is not None and when is None:
            when = shown_date(shown.text())
        cite = item.css_first("cite")
        site = item.css_first(".tptt")
        return self.hit(
            rank,
            link.text(),
            url,
            snippet=snippet,
            display_url=cite.text() if cite is not None else None,
            date=when,
            source=site.text() if site is not None else None,
        )

    def _locale(self, request: SearchRequest) -> tuple[str | None, str | None]:
        """(language, region) from the request, falling back to options["market"] such as "zh-CN"."""
        language, _, from_language = (request.language or "").partition("-")
        region = request.region or from_language or None
        if not language and not region:
            language, _, region_option = self.settings.options.get("market", "").lower().partition("-")
            region = region_option or None
        return language or None, region

    def _search_url(self, request: SearchRequest) -> str:
        if request.region == "cn" and not self.settings.base_url:
            return f"{CN_ORIGIN}/search"
        return self.url("/search")


def decode_click_url(href: str, page_origin: str) -> str:
    """The target of a Bing /ck/a click tracker (any Bing host), else the href made absolute."""
    url = urljoin(page_origin + "/", href)
    parts = urlsplit(url)
    if not parts.path.startswith("/ck/a"):
        return url
    encoded = parse_qs(parts.query).get("u", [""])[0]
    if not encoded.startswith("a1"):
        return url
    raw = encoded[2:] + "=" * (-len(encoded[2:]) % 4)
    try:
        target = base64.urlsafe_b64decode(raw).decode("utf-8")
    except (binascii.Error, ValueError):
        return url
    return target if target.startswith(("http://", "https://")) else url


def parse_date(text: str) -> str | None:
    """An ISO date from Bing's shown date forms; the text itself when it is a date we cannot pin down
    (relative, or day/month order unknown); None when it is not a date at all."""
    shown = " ".join(text.split())
    if RELATIVE.fullmatch(shown):
        return shown
    if m := NAMED_MDY.fullmatch(shown):
        year, month, day = m[3], MONTHS.get(m[1].lower(), 0), m[2]
    elif m := NAMED_DMY.fullmatch(shown):
        year, month, day = m[3], MONTHS.get(m[2].lower(), 0), m[1]
    elif m := ISO.fullmatch(shown):
        year, month, day = m[1], int(m[2]), m[3]
    elif m := DOTTED.fullmatch(shown):
        year, month, day = m[3], int(m[2]), m[1]  # dotted dates are day-first wherever Bing prints them
    elif m := SLASHED.fullmatch(shown):
        first, second = int(m[1]), int(m[2])
        if first <= 12 and second <= 12:
            return shown  # 6/10/2016: the market decides the order, and we cannot know it here
        year, month, day = (m[3], first, m[2]) if second > 12 else (m[3], second, m[1])
    else:
        return None
    try:
        return date(int(year), month, int(day)).isoformat()
    except ValueError:
        return None


def shown_date(text: str) -> str:
    """ISO when parseable, else the date as shown."""
    return parse_date(text) or " ".join(text.split())


def split_date_prefix(snippet: str) -> tuple[str | None, str]:
    """Split Bing's "<date> · <snippet>" caption into (date, snippet); (None, snippet) when there is none."""
    match = DATE_PREFIX.fullmatch(snippet.strip())
    if match is None:
        return None, snippet
    when = parse_date(match["date"])
    return (when, match["rest"]) if when else (None, snippet)


def _origin_of(response: httpx.Response, default: str) -> str:
    """Origin of the page that answered (relative links resolve against it), else the engine's."""
    try:
        url = response.request.url
    except RuntimeError:
        return default
    return f"{url.scheme}://{url.netloc.decode('ascii')}" if url.host else default
