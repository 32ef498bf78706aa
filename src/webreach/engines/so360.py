"""360 Search (so.com): Qihoo's Chinese web index, scraped from its HTML results page (www.so.com/s).

Decisions:
- 360 wants a session cookie before it serves results: the warm-up fetches the same search URL without
  following redirects and keeps the first Set-Cookie pair, which build_request sends back as Cookie (SearXNG's
  360search does the same). The cookie belongs to the client, not the query, so one warm-up serves every query.
- Results are `li.res-list`; title and link come from `h3.res-title a`, whose `data-mdurl` holds the real URL
  (the href may be a so.com redirect). Sponsored lists (`#e_idea_pp`, `#so_kw-ad`) are skipped.
- Blocks: 360 answers unwanted clients (typically non-Chinese IPs) with an empty 200 body, which is a block,
  not an empty result list; a redirect to a captcha URL is a CAPTCHA.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar
from urllib.parse import urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborNode

from webreach.engines._base import COOKIE_TOKEN, Engine, Tokens, query_with_site, session_cookie
from webreach.engines._dates import numeric_date
from webreach.engines._html import MAX_ITEMS, ancestors, attribute, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "d", "week": "w", "month": "m", "year": "y"})
SNIPPETS = "p.res-desc, span.res-list-summary, div.res-comm-con, div.res-rich p"
NO_RESULTS_MARKERS = ('id="no-result"', "未找到和", "找不到和")
AD_CONTAINERS = ("e_idea_pp", "so_kw-ad", "e_idea_wd", "rightbox-ad")


class So360(Engine):
    """Scrapes www.so.com/s after a cookie warm-up."""

    name = "so360"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims
    page_markers = ("www.so.com", "res-list", "360搜索", "data-mdurl", "res-title")

    def _search_request(self, request: SearchRequest, cookie: str | None) -> httpx.Request:
        params = {"q": query_with_site(request), "pn": str(request.page)}
        if request.freshness:
            params["adv_t"] = FRESHNESS[request.freshness]
        headers = self.browser_headers(**{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
        if cookie:
            headers["Cookie"] = cookie
        return httpx.Request("GET", self.url("/s"), params=params, headers=headers)

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        return self._search_request(request, (tokens or {}).get(COOKIE_TOKEN))

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        """The same search, sent without a cookie; the gateway must not follow its redirects."""
        return self._search_request(request, None)

    def read_warm_up(self, response: httpx.Response) -> dict[str, str]:
        return session_cookie(response)  # one cookie per engine: it identifies the client, not the query

    def check_redirect(self, response: httpx.Response) -> None:
        if "captcha" in response.headers.get("location", "").lower():
            raise BlockedError("redirected to a captcha instead of results", kind="captcha", engine=self.name)
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        if not text.strip():
            raise BlockedError("answered with an empty page (360 does this to clients it refuses)", engine=self.name)
        tree = parse_html(text)
        tree.strip_tags(["style", "script"])
        page_url = str(self.page_url(response))
        hits: list[Hit] = []
        for item in tree.css("li.res-list")[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1, page_url)
            if hit is not None:
                hits.append(hit)
        if not hits and not any(marker in text for marker in NO_RESULTS_MARKERS):
            raise self.parse_error("no li.res-list results and no no-results notice on the page")
        return hits

    def opaque_result(self, url: str) -> bool:
        return urlsplit(url).path == "/link"

    def link_target(self, link: LexborNode, page_url: str) -> str | None:
        carried = attribute(link, "data-mdurl")  # the real URL beside a so.com redirect
        return carried if carried.startswith(("http://", "https://")) else super().link_target(link, page_url)

    def _hit(self, item: LexborNode, rank: int, page_url: str) -> Hit | None:
        link = item.css_first("h3.res-title a, h3 a")
        if link is None or _in_ad_block(item):
            return None
        target = attribute(link, "data-mdurl") or attribute(link, "href")
        title = text_of(link)
        if not target or not title:
            return None
        return self.hit(
            rank,
            title,
            urljoin(page_url, target),
            snippet=text_of(item.css_first(SNIPPETS)),
            display_url=text_of(item.css_first("p.g-linkinfo cite, p.res-linkinfo cite, cite")) or None,
            date=numeric_date(text_of(item.css_first("p.g-linkinfo, p.res-linkinfo"))),
        )


def _in_ad_block(item: LexborNode) -> bool:
    return any(ad in (node.attributes.get("id") or "") for node in (item, *ancestors(item)) for ad in AD_CONTAINERS)
