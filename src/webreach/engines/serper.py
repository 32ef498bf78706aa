"""Serper (google.serper.dev): Google results as JSON, key in the X-API-KEY header.

One POST to /search with {"q", "num", "page", "gl", "hl", "tbs"}. Serper also takes a JSON array of queries
(a batch) and then answers with an array; the parser accepts that form and reads its first answer. Errors:
403 {"message": "Unauthorized."} is a bad key, 400 "Not enough credits" means the credits are spent
(reported by users, unverified), any other 400 is a bad request, 429 comes on bursts. Google's shown dates
("Jan 29, 2023") become ISO dates.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.engines._dates import api_date
from webreach.engines._json import by_position, google_body, items_with, json_body, json_post, result_list
from webreach.errors import QuotaExhaustedError
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 100
FRESHNESS_TBS: Mapping[str, str] = MappingProxyType(
    {"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"}
)


class Serper(Engine):
    """Serper /search (Google)."""

    name = "serper"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body = google_body(request, min(request.limit, MAX_RESULTS))
        if request.freshness:
            body["tbs"] = FRESHNESS_TBS[request.freshness]
        return json_post(self.url("/search"), body, {"X-API-KEY": self.api_key()})

    def answer_block(self, response: httpx.Response, key: str) -> list[Any]:
        """The answer's `key` list (organic, images ...); [] for a well-formed answer without one (Google found
        nothing); ParseError for anything else. The batch form (one answer per query sent) is unwrapped."""
        data = json_body(response, self.name)
        if isinstance(data, list) and data:
            data = data[0]
        if not isinstance(data, dict):
            raise self.parse_error("answered with JSON that is not a search answer")
        if data.get(key) is None and isinstance(data.get("searchParameters"), dict):
            return []
        return result_list(data, key, self.name)

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code == 400 and "not enough credits" in response.text.lower():
            raise QuotaExhaustedError(f"credits used up{self._detail(response)}", engine=self.name)
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        organic = self.answer_block(response, "organic")
        return [
            self.hit(
                rank,
                item.get("title") or item["link"],
                item["link"],
                snippet=item.get("snippet") or "",
                date=api_date(item.get("date")),
                source=item.get("source"),
            )
            for rank, item in enumerate(by_position(items_with(organic, "link")), 1)
        ]
