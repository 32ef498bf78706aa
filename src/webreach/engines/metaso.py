"""Metaso (秘塔AI搜索) search API: POST metaso.cn/api/v1/search, Chinese-first, key "mk-..." as a Bearer token.

Metaso publishes a playground rather than a reference, so the shape follows the maintained clients
(rikkahub's typed model; others): body {"q", "scope": "webpage", "size", "page", "includeSummary"}, answer
{"credits", "searchParameters", "webpages": [{"title", "link", "snippet", "summary"?, "position", "date"}]}.
One client reads webpages.webpage[] instead of a list; both forms parse. `page` follows the official curl
sample as quoted by a client; there is no time filter, and `site:` in q restricts the site. No error table is
published, so errors use the base mapping (400/422 bad request, 401/403 key, 402 quota, 429 rate limit, 5xx).
"""

from __future__ import annotations

from typing import Any

import httpx

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import NUMERIC_YMD, ymd
from webreach.engines._json import bearer, by_position, items_with, json_object, json_post
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 20  # clients validate size as 1-20


class Metaso(Engine):
    """Metaso /api/v1/search, webpage scope."""

    name = "metaso"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body: dict[str, Any] = {
            "q": query_with_site(request),
            "scope": "webpage",
            "size": min(request.limit, MAX_RESULTS),
            "page": request.page,
            "includeSummary": False,
        }
        return json_post(self.url("/api/v1/search"), body, bearer(self.api_key()))

    def parse(self, response: httpx.Response) -> list[Hit]:
        pages = json_object(response, self.name).get("webpages")
        if isinstance(pages, dict):
            pages = pages.get("webpage")
        if not isinstance(pages, list):
            raise self.parse_error("no webpages list in the answer")
        return [
            self.hit(
                rank,
                item.get("title") or item["link"],
                item["link"],
                snippet=item.get("snippet") or item.get("summary") or "",
                date=iso_date(item.get("date")),
            )
            for rank, item in enumerate(by_position(items_with(pages, "link")), 1)
        ]


def iso_date(text: str | None) -> str | None:
    """A "2024年1月3日" date as ISO; anything else (ISO already, or unrecognized) stays as given."""
    if not text:
        return None
    match = NUMERIC_YMD.fullmatch(text.strip())
    return ymd(match) if match else text
