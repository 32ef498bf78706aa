"""Mojeek: an independent web index, scraped from its HTML results page (www.mojeek.com/search)."""

from __future__ import annotations

from typing import ClassVar

import httpx
from selectolax.lexbor import LexborHTMLParser

from webreach.engines._base import Engine, Tokens
from webreach.models import Hit, SearchRequest

FRESHNESS_DAYS = {"day": 1, "week": 7, "month": 31, "year": 365}
NO_RESULTS_MARKERS = ("No pages found matching", "did not match any documents")


class Mojeek(Engine):
    """Scrapes www.mojeek.com/search."""

    name = "mojeek"
    kind = "scraped"
    base_url = "https://www.mojeek.com"
    index = "mojeek"
    supports: ClassVar[frozenset[str]] = frozenset({"page", "site", "language", "region", "safesearch"})
    rate_per_minute = 15.0

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        query = f"{request.query} site:{request.site}" if request.site else request.query
        params = {"q": query, "safe": "0" if request.safesearch == "off" else "1"}
        if request.page > 1:
            # never send s on page 1: Mojeek rate-limits s=0 (SearXNG's mojeek.py)
            params["s"] = str(10 * (request.page - 1) + 1)
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
        tree = LexborHTMLParser(response.text)
        hits: list[Hit] = []
        for item in tree.css("ul.results-standard > li"):
            link = item.css_first("h2 a")
            if link is None or not link.attributes.get("href"):
                continue
            snippet = item.css_first("p.s")
            display = item.css_first("p.i span.url")
            hits.append(
                self.hit(
                    len(hits) + 1,
                    link.text(),
                    link.attributes["href"] or "",
                    snippet=snippet.text() if snippet else "",
                    display_url=display.text() if display else None,
                )
            )
        if not hits and not any(marker in response.text for marker in NO_RESULTS_MARKERS):
            raise self.parse_error("no results list and no no-results notice on the page")
        return hits
