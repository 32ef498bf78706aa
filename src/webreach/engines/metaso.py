"""Metaso (秘塔AI搜索) search API: POST metaso.cn/api/v1/search, Chinese-first, key "mk-..." as a Bearer token.

Metaso publishes a playground rather than a reference, so the shape follows the maintained clients
(rikkahub's typed model; others): body {"q", "scope": "webpage", "size", "page", "includeSummary"}, answer
{"credits", "searchParameters", "webpages": [{"title", "link", "snippet", "summary"?, "position", "date"}]}.
One client reads webpages.webpage[] instead of a list; both forms parse. `page` follows the official curl
sample as quoted by a client; there is no time filter, and `site:` in q restricts the site. No error table is
published, so errors use the base mapping (401/403 key, 402 quota, 429 rate limit, 5xx).
"""

from __future__ import annotations

import re
from typing import Any, ClassVar

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 20  # clients validate size as 1-20
CHINESE_DATE = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})日$")


class Metaso(Engine):
    """Metaso /api/v1/search, webpage scope."""

    name = "metaso"
    kind = "api"
    base_url = "https://metaso.cn"
    index = "metaso"
    needs_key = True
    supports: ClassVar[frozenset[str]] = frozenset({"page", "site"})
    rate_per_minute = 60.0
    language_hint = "zh"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        query = f"{request.query} site:{request.site}" if request.site else request.query
        body: dict[str, Any] = {
            "q": query,
            "scope": "webpage",
            "size": min(request.limit, MAX_RESULTS),
            "page": request.page,
            "includeSummary": False,
        }
        headers = {"Authorization": f"Bearer {self.api_key()}", "Accept": "application/json"}
        return httpx.Request("POST", self.url("/api/v1/search"), json=body, headers=headers)

    def parse(self, response: httpx.Response) -> list[Hit]:
        try:
            data = response.json()
        except ValueError:
            raise self.parse_error("answered with something other than JSON") from None
        pages = data.get("webpages") if isinstance(data, dict) else None
        if isinstance(pages, dict):
            pages = pages.get("webpage")
        if not isinstance(pages, list):
            raise self.parse_error("no webpages list in the answer")
        items = sorted(
            (item for item in pages if isinstance(item, dict) and item.get("link")),
            key=lambda item: item.get("position") or 0,
        )
        return [
            self.hit(
                rank,
                item.get("title") or item["link"],
                item["link"],
                snippet=item.get("snippet") or item.get("summary") or "",
                date=iso_date(item.get("date")),
            )
            for rank, item in enumerate(items, 1)
        ]


def iso_date(text: str | None) -> str | None:
    """A "2024年1月3日" date as ISO; anything else (ISO already, or unrecognized) stays as given."""
    if not text:
        return None
    match = CHINESE_DATE.match(text.strip())
    if not match:
        return text
    year, month, day = (int(part) for part in match.groups())
    return f"{year:04d}-{month:02d}-{day:02d}"
