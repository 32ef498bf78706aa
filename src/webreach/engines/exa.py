"""Exa: neural web search API (POST api.exa.ai/search, camelCase JSON, key in the x-api-key header).

Snippets come from Exa's highlights (asked for with a character cap, as SearXNG does) so no full page text is
paid for. There is no offset, so `page` is not honoured. Freshness becomes startPublishedDate, an absolute date
counted back from today's UTC date by the engine's clock (Exa then drops results without a date, which is what
"only recent" means).
Errors use the base mapping: 400 bad request, 401 key, 402 credits or key budget spent (quota), 429 rate limit, 5xx.
"""

from __future__ import annotations

from typing import Any

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.engines._freshness import first_day
from webreach.engines._html import host_of
from webreach.engines._json import json_post, listed_results
from webreach.models import Freshness, Hit, SearchRequest

MAX_RESULTS = 100
HIGHLIGHT_CHARS = 500


class Exa(Engine):
    """Exa /search with highlights."""

    name = "exa"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body: dict[str, Any] = {
            "query": request.query,
            "numResults": min(request.limit, MAX_RESULTS),
            "type": "auto",
            "contents": {"highlights": {"maxCharacters": HIGHLIGHT_CHARS}},
        }
        if request.site:
            body["includeDomains"] = [request.site]
        if request.freshness:
            body["startPublishedDate"] = published_since(request.freshness, self.clock.now())
        if request.region:
            body["userLocation"] = request.region.upper()
        if request.safesearch == "strict":
            body["moderation"] = True  # Exa's only filter; unmoderated is its default, which "off" asks for
        return json_post(self.url("/search"), body, {"x-api-key": self.api_key()})

    def parse(self, response: httpx.Response) -> list[Hit]:
        return [self._hit(rank, item) for rank, item in enumerate(listed_results(response, self.name, "results"), 1)]

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        url = item["url"]
        return self.hit(
            rank,
            item.get("title") or url,  # Exa leaves title empty for some pages
            url,
            snippet=snippet_of(item),
            date=item.get("publishedDate"),
            source=item.get("author") or host_of(url),
        )


def published_since(freshness: Freshness, now: float) -> str:
    """startPublishedDate for a freshness window ending at `now` (midnight UTC of the first day)."""
    return f"{first_day(freshness, now).isoformat()}T00:00:00.000Z"


def snippet_of(item: dict[str, Any]) -> str:
    """Highlights joined, else the start of the text, else the summary."""
    highlights = [h for h in item.get("highlights") or [] if isinstance(h, str)]
    if highlights:
        return " … ".join(highlights)
    text = item.get("text")
    if isinstance(text, str) and text:
        return text[:HIGHLIGHT_CHARS]
    summary = item.get("summary")
    return summary if isinstance(summary, str) else ""
