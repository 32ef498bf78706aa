"""Mojeek: an independent web index, scraped from its HTML results page (www.mojeek.com/search).

Freshness is `since=YYYYMMDD`, the first day of the window counted back from the engine's clock (SearXNG's
mojeek.py sends the same parameter).
"""

from __future__ import annotations

from typing import ClassVar

import httpx

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._freshness import first_day
from webreach.engines._html import MAX_ITEMS, attribute, parse_html, text_of
from webreach.models import Hit, SearchRequest

NO_RESULTS_MARKERS = ("No pages found matching", "did not match any documents")


class Mojeek(Engine):
    """Scrapes www.mojeek.com/search."""

    name = "mojeek"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims
    page_markers = ("mojeek", "results-standard", "Mojeek")

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"q": query_with_site(request), "safe": "0" if request.safesearch == "off" else "1"}
        if request.page > 1:
            # never send s on page 1: Mojeek rate-limits s=0 (SearXNG's mojeek.py)
            params["s"] = str(10 * (request.page - 1) + 1)
        if request.freshness:
            params["since"] = first_day(request.freshness, self.clock.now()).strftime("%Y%m%d")
        cookies = []
        if request.language:
            cookies.append(f"lb={request.language.split('-')[0]}")
        if request.region:
            cookies.append(f"arc={request.region}")
        headers = self.browser_headers()
        if cookies:
            headers["Cookie"] = "; ".join(cookies)
        return httpx.Request("GET", self.url("/search"), params=params, headers=headers)

    def parse(self, response: httpx.Response) -> list[Hit]:
        tree = parse_html(response.text)
        hits: list[Hit] = []
        for item in tree.css("ul.results-standard > li")[:MAX_ITEMS]:
            link = item.css_first("h2 a")
            href = attribute(link, "href")
            if not href:
                continue
            hits.append(
                self.hit(
                    len(hits) + 1,
                    text_of(link),
                    href,
                    snippet=text_of(item.css_first("p.s")),
                    display_url=text_of(item.css_first("p.i span.url")) or None,
                )
            )
        if not hits and not any(marker in response.text for marker in NO_RESULTS_MARKERS):
            raise self.parse_error("no results list and no no-results notice on the page")
        return hits
