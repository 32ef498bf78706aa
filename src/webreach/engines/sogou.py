"""Sogou: Tencent-owned Chinese web index, scraped from its HTML results page (www.sogou.com/web).

Decisions:
- Web results are `div.rb` (plain: `h3.pt a`, `div.ft`, `cite`) and `div.vrwrap` (rich: `h3.vr-title a`,
  `div.fz-mid.space-txt` / `div.attribute-centent`, `span.cite-date`); vrwraps holding a `special-wrap`
  (Sogou's own verticals) and the sponsored blocks are skipped.
- Sogou's WeChat vertical (weixin.sogou.com, same stack) lists results as `ul.news-list > li` (articles) and
  `ul.news-list2 > li` (official accounts); the parser reads those too, so WeChat pages parse the same way.
- Links are `/link?url=<token>` redirects; the item carries the target in a `data-url` attribute, which is
  used. Without it the redirect is kept, made absolute on the page's own host.
- Blocks: a redirect to /antispider, or the antispider interstitial itself (seccode form), is a CAPTCHA.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime, timedelta, timezone
from types import MappingProxyType
from typing import ClassVar
from urllib.parse import urljoin, urlsplit

import httpx
from selectolax.lexbor import LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import NUMERIC_YMD, numeric_date
from webreach.engines._html import MAX_ITEMS, ancestors, attribute, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

FRESHNESS: Mapping[str, str] = MappingProxyType(
    {"day": "inttime_day", "week": "inttime_week", "month": "inttime_month", "year": "inttime_year"}
)
ITEMS = "div.rb, div.vrwrap, ul.news-list > li, ul.news-list2 > li"
TITLE_LINKS = ("h3.pt a", "h3.vr-title a", "h3 a", "p.tit a")
SNIPPETS = "div.ft, div.attribute-centent, div.fz-mid.space-txt, p.txt-info, p.str_info, dl > dd"
ANTISPIDER_MARKERS = ('id="seccodeForm"', "antispider.min.js", "/antispider/")
NO_RESULTS_MARKERS = ("noresult_part1_container", "没有找到与", "暂无与")
# sponsored blocks on www.sogou.com; their items share the organic markup
AD_CONTAINERS = ("promotion_adv_container", "kmap_business_adv", "sogou_biz_")
CHINA_TIME = timezone(timedelta(hours=8))


class Sogou(Engine):
    """Scrapes www.sogou.com/web (and parses Sogou WeChat result pages)."""

    name = "sogou"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims
    page_markers = ("sogou.com", "搜狗", "news-list", "vrwrap", "sogou_vr_")

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"query": query_with_site(request), "page": str(request.page), "ie": "utf8"}
        if request.freshness:
            params["s_from"] = FRESHNESS[request.freshness]
            params["tsn"] = "1"
        headers = self.browser_headers(**{"Accept-Language": "zh-CN,zh;q=0.9,en;q=0.8"})
        return httpx.Request("GET", self.url("/web"), params=params, headers=headers)

    def check_redirect(self, response: httpx.Response) -> None:
        if "/antispider" in response.headers.get("location", ""):
            raise BlockedError(
                "redirected to its antispider check instead of results", kind="captcha", engine=self.name
            )
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        tree = parse_html(text)
        # WeChat pages render dates with inline document.write(); their text must not reach snippets
        tree.strip_tags(["style", "script"])
        page_url = str(self.page_url(response))
        hits: list[Hit] = []
        seen: set[str] = set()
        for item in tree.css(ITEMS)[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1, page_url)
            if hit is not None and hit.url not in seen:
                seen.add(hit.url)
                hits.append(hit)
        if hits:
            return hits
        if any(marker in text for marker in ANTISPIDER_MARKERS):
            raise BlockedError("answered with its antispider verification page", kind="captcha", engine=self.name)
        if any(marker in text for marker in NO_RESULTS_MARKERS):
            return hits
        raise self.parse_error("no result items and no no-results notice on the page")

    def opaque_result(self, url: str) -> bool:
        return urlsplit(url).path == "/link" and "url=" in urlsplit(url).query

    def record_target(self, record: LexborNode, url: str) -> str:
        # the data-url the engine's own parser reads, carried beside the /link redirect
        carried = _carried(record) if self.opaque_result(url) else []
        return carried[0] if carried else url

    def _hit(self, item: LexborNode, rank: int, page_url: str) -> Hit | None:
        if item.css_first("div.special-wrap") is not None or _in_ad_block(item):
            return None
        link = next((node for sel in TITLE_LINKS if (node := item.css_first(sel)) is not None), None)
        if link is None:
            return None
        href, title = attribute(link, "href"), text_of(link)
        if not href or href.startswith("javascript:") or not title:
            return None
        display, date = _cite(item)
        return self.hit(
            rank,
            title,
            _target(item, href, page_url),
            snippet=text_of(item.css_first(SNIPPETS)),
            display_url=display,
            date=date or _wechat_date(item),
            source=text_of(item.css_first("a.account")) or None,
        )


def _target(item: LexborNode, href: str, page_url: str) -> str:
    """The real URL: Sogou's data-url beside a /link redirect, else the href made absolute."""
    carried = _carried(item) if href.startswith("/link?") else []
    return carried[0] if carried else urljoin(page_url, href)


def _carried(item: LexborNode) -> list[str]:
    """The http(s) targets the item's data-url attributes carry."""
    values = (attribute(node, "data-url") for node in item.css("[data-url]"))
    return [value for value in values if value.startswith(("http://", "https://"))]


def _cite(item: LexborNode) -> tuple[str | None, str | None]:
    """(display URL, ISO date) from the cite line of a web result."""
    shown = text_of(item.css_first("cite, div.citeurl"))
    date_node = item.css_first("span.cite-date")
    date = numeric_date(date_node.text() if date_node is not None else shown)
    in_shown = NUMERIC_YMD.search(shown)
    if in_shown:
        shown = shown[: in_shown.start()]
    return shown.strip(" -\u00a0") or None, date


def _wechat_date(item: LexborNode) -> str | None:
    """WeChat articles carry their publication time as a Unix timestamp in div.s-p[t]."""
    value = attribute(item.css_first("div.s-p[t]"), "t")
    if not (value.isascii() and value.isdigit()):
        return None
    try:
        moment = datetime.fromtimestamp(int(value), tz=UTC).astimezone(CHINA_TIME)
    except (OverflowError, OSError, ValueError):  # a timestamp past the year 9999 is no date
        return None
    return moment.date().isoformat()


def _in_ad_block(item: LexborNode) -> bool:
    for node in (item, *ancestors(item)):
        marker = f"{node.attributes.get('id') or ''} {node.attributes.get('class') or ''}"
        if any(ad in marker for ad in AD_CONTAINERS):
            return True
    return False
