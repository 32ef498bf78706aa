"""Brave: Brave's own web index, scraped keylessly from search.brave.com (the brave_api engine is the paid API).

Decisions:
- Results are the `div.snippet[data-type=web]` blocks; links are direct (no redirect wrapper). The 2022-2023
  generation (`div.snippet.fdb`: `a.result-header` around `span.snippet-title`, `p.snippet-description`, the
  address in `span.snippet-url`; fixture tests/fixtures/serp/brave/2023-fdb.html, written from the documented
  markup) is read too. A block whose
  link has no host is an ad (SearXNG's brave.py) and is skipped. Cluster links nested inside a result (sitelinks)
  are not results of their own.
- Brave puts the date in front of the snippet ("December 13, 2024 - ..."); it becomes the hit's date (ISO when it
  is an absolute date, as shown for "2 days ago") and leaves the snippet.
- Parameters are Brave's web form: `offset` is the 0-based page (Brave flags offsets above 9 as bots; our pages
  stop at 10), `tf` the time filter, and cookies carry safesearch, country and ui_lang. Brave answers about 20
  results a page and takes no count, so `limit` trims on our side.
- Blocks: 403 and 429 (base mapping: blocked, rate_limited). Brave's verification page lives at /captcha or
  /verify; a redirect there, or a page from there, is a CAPTCHA, and so is a page with no results that carries
  that page's markers (community-observed, not from a capture). The no-results notice text is likewise
  community-observed, and counts only in the page's visible text: every real results page carries the same
  words in its scripts' strings. A page with neither results nor a known notice is a ParseError.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import ClassVar
from urllib.parse import urlsplit

import httpx
from selectolax.lexbor import LexborNode

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import named_date, split_shown_date
from webreach.engines._html import MAX_ITEMS, attribute, parse_html, text_of
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "pd", "week": "pw", "month": "pm", "year": "py"})
CAPTCHA_PATHS = ("/captcha", "/verify")
CAPTCHA_MARKERS = ('"page":"/captcha"', 'class="captcha-card', "<title>Verify you are human")
NO_RESULTS_MARKERS = ("Not many great matches came back for your search", "No results found")
# Brave's ui_lang is language-country; the usual country for a bare language code
LANGUAGE_COUNTRY: Mapping[str, str] = MappingProxyType(
    {"en": "us", "ja": "jp", "ko": "kr", "zh": "cn", "sv": "se", "da": "dk", "cs": "cz", "el": "gr"}
)


class Brave(Engine):
    """Scrapes search.brave.com/search."""

    name = "brave"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims
    page_markers = ("search.brave.com", 'data-type="web"', "Brave Search", "brave.com/static", "snippet-title")

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"q": query_with_site(request), "source": "web"}
        if request.page > 1:
            params["offset"] = str(request.page - 1)
        if request.freshness:
            params["tf"] = FRESHNESS[request.freshness]
        cookies = {"safesearch": request.safesearch, "useLocation": "0", "summarizer": "0"}
        if request.region:
            cookies["country"] = request.region
        if request.language:
            cookies["ui_lang"] = _ui_lang(request.language, request.region)
        headers = self.browser_headers(Cookie="; ".join(f"{k}={v}" for k, v in cookies.items()))
        if request.language:
            headers["Accept-Language"] = f"{request.language},{request.language.split('-')[0]};q=0.9"
        return httpx.Request("GET", self.url("/search"), params=params, headers=headers)

    def check_redirect(self, response: httpx.Response) -> None:
        if urlsplit(response.headers.get("location", "")).path.startswith(CAPTCHA_PATHS):
            raise BlockedError("redirected to its 'verify you are human' page", kind="captcha", engine=self.name)
        super().check_redirect(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        text = response.text
        tree = parse_html(text)
        hits: list[Hit] = []
        for item in tree.css('div.snippet[data-type="web"]')[:MAX_ITEMS]:
            hit = self._hit(item, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        if not hits:
            if self.page_url(response).path.startswith(CAPTCHA_PATHS) or any(m in text for m in CAPTCHA_MARKERS):
                raise BlockedError("answered with its 'verify you are human' page", kind="captcha", engine=self.name)
            # the notice must be on the page, not in the strings its scripts carry (every results page has them)
            tree.strip_tags(["script", "style", "template"])
            shown = tree.body.text() if tree.body is not None else ""
            if not any(marker in shown for marker in NO_RESULTS_MARKERS):
                raise self.parse_error("no div.snippet[data-type=web] results and no no-results notice on the page")
        return hits

    def _hit(self, item: LexborNode, rank: int) -> Hit | None:
        main = item.css_first("div.result-content") or item
        link = main.css_first("a.result-header[href]") or main.css_first("a[href]")
        url = attribute(link, "href")
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https") or not parts.netloc:
            return None  # ads carry no host of their own
        title_node = main.css_first(".title, .snippet-title")
        title = attribute(title_node, "title") or text_of(title_node) or text_of(link)
        if not title:
            return None
        snippet, date = _snippet_and_date(main)
        return self.hit(
            rank,
            title,
            url,
            snippet=snippet,
            date=date,
            display_url=text_of(main.css_first("cite, .snippet-url")) or None,
            source=text_of(main.css_first("div.site-name-content > div")) or None,
        )


def _ui_lang(language: str, region: str | None) -> str:
    base, _, country = language.partition("-")
    return f"{base}-{country or region or LANGUAGE_COUNTRY.get(base, base)}"


def _snippet_and_date(main: LexborNode) -> tuple[str, str | None]:
    content = main.css_first("div.content, .snippet-description")
    if content is None:
        return "", None
    text = text_of(content)
    shown = text_of(content.css_first("span.t-secondary"))
    if not shown:  # the older markup prints "March 2, 2023 - " as plain text
        head = text.split(" - ", 1)[0]
        shown = head if " - " in text and named_date(head) else ""
    date, snippet = split_shown_date(text, shown, "-–—")
    return snippet, date
