"""Bing: Microsoft's web index, scraped from its HTML results page (www.bing.com/search, or cn.bing.com).

Decisions:
- Results are `li.b_algo` wherever they sit (desktop: children of `#b_results`; the mobile page nests them in
  wrappers): title `h2 a`, or the mobile header's `a` around the `h2`; snippet the first `p` of `.b_caption`
  (mobile: `.b_snippet`, `p.b_lineclamp*`), display URL `cite`, site name `.tptt`. Ads are `li.b_ad` and never
  match, and stray `/aclick` links are dropped too. tests/fixtures/serp/bing/ holds the mobile variant, written
  from the documented markup.
- Links are `/ck/a?...&u=a1<base64url>` click trackers on any Bing host; the target is decoded from `u`.
- Freshness uses `filters=ex1:"ez1|ez2|ez3"` (day/week/month); a year is an explicit range of days since the
  epoch, `ex1:"ez5_<d-365>_<d>"` with d today by the engine's clock (ddgs's bing.py).
- Market: `mkt=<lang>-<CC>` when both are known, else `setlang` / `cc` alone; options["market"] sets a default.
- China: options["host"] = "cn.bing.com" or options["market"] = "zh-CN", or a request with region "cn", uses
  https://cn.bing.com (same markup) unless a base_url is configured, which always wins.
- Blocks: a redirect to /turing/captcha/challenge, or a 200 page carrying Bing's challenge (`#b_captcha`, the
  "One last step" box with its Turnstile widget) is a CAPTCHA. `li.b_no` is the genuine no-results notice.
- The date line ("Jul 16, 2025 · ...") becomes an ISO date (engines/_dates.py, shared with Yahoo, which serves
  Bing's results with the same caption).
"""

from __future__ import annotations

import base64
import binascii
from urllib.parse import parse_qs, urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborNode

from webreach.clock import Clock
from webreach.config import EngineSettings
from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import shown_date, split_dot_date
from webreach.engines._freshness import bing_filters
from webreach.engines._html import MAX_ITEMS, ancestors, attribute, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

CN_ORIGIN = "https://cn.bing.com"
CHALLENGE = (
    "#b_captcha, #turnstile-widget, div.captcha_header, form[action*='/turing/captcha'], iframe[src*='/turing/captcha']"
)


class Bing(Engine):
    """Scrapes www.bing.com/search (or cn.bing.com)."""

    name = "bing"
    page_markers = ('id="b_results"', "b_algo", "bing.com/ck/a", 'id="b_header"', "/rp/", "_EDGE_")

    def __init__(
        self, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
    ) -> None:
        super().__init__(settings, user_agent=user_agent, clock=clock)
        options = self.settings.options
        if not self.settings.base_url and (
            options.get("host") == "cn.bing.com" or options.get("market", "").lower() == "zh-cn"
        ):
            self.origin = CN_ORIGIN

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"q": query_with_site(request), "count": str(request.limit), "adlt": request.safesearch}
        if request.page > 1:
            params["first"] = str((request.page - 1) * request.limit + 1)
            params["FORM"] = "PERE"
        if request.freshness:
            params["filters"] = bing_filters(request.freshness, self.clock.now())
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
        tree = parse_html(response.text)
        if tree.css_first(CHALLENGE) is not None:
            raise BlockedError("answered with its 'One last step' challenge page", kind="captcha", engine=self.name)
        served = self.page_url(response)
        page_origin = f"{served.scheme}://{served.netloc.decode('ascii')}"
        hits: list[Hit] = []
        for item in tree.css("li.b_algo")[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1, page_origin)
            if hit is not None:
                hits.append(hit)
        if not hits and tree.css_first("#b_results li.b_no, li.b_no") is None:
            raise self.parse_error("no b_algo results and no no-results notice on the page")
        return hits

    def _hit(self, item: LexborNode, rank: int, page_origin: str) -> Hit | None:
        link = item.css_first("h2 a")
        if link is None:  # the mobile header wraps the h2 in its link
            heading = item.css_first("a h2")
            link = next((node for node in ancestors(heading) if node.tag == "a"), None) if heading else None
            title = text_of(heading)
        else:
            title = text_of(link)
        href = attribute(link, "href")
        if not href or not title:
            return None
        url = decode_click_url(href, page_origin)
        if "/aclick?" in url:
            return None
        caption = item.css_first(".b_caption p, .b_snippet, p[class^='b_lineclamp']") or item.css_first("p")
        when, snippet = split_dot_date(text_of(caption))
        shown = text_of(item.css_first("span.news_dt"))
        if shown and when is None:
            when = shown_date(shown) or shown
        return self.hit(
            rank,
            title,
            url,
            snippet=snippet,
            display_url=text_of(item.css_first("cite")) or None,
            date=when,
            source=text_of(item.css_first(".tptt")) or None,
        )

    def decode_link(self, href: str, page_url: str) -> str:
        parts = urlsplit(page_url)
        return decode_click_url(href, f"{parts.scheme}://{parts.netloc}")

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
