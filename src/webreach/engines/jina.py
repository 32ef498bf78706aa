"""Jina search (s.jina.ai): a web SERP as JSON, Google-backed, key required (Authorization: Bearer).

We POST {"q", "num", ...} with Accept: application/json and X-Respond-With: no-content, which returns the SERP
alone (title, url, description, date) instead of crawling every hit: faster, cheaper, and all a search needs.
The upstream is pinned to Google ("provider": "google"; Jina has switched defaults before), so the index is Google's.
Jina's civkit envelope puts the HTTP status in the first three digits of its 5-digit `status`: 401 auth,
402 (40201/40203) credits or balance spent, 429 rate limit with Retry-After. An empty SERP is an assertion
failure ("No search results available for query ..."), a 4xx that means zero hits, not an error.
"""

from __future__ import annotations

from typing import Any, ClassVar

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.engines._dates import api_date
from webreach.engines._json import bearer, google_body, json_post, listed_results
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 20
NO_RESULTS_MARKER = "No search results available"


class Jina(Engine):
    """Jina s.jina.ai search."""

    name = "jina"
    kind = "api"
    base_url = "https://s.jina.ai"
    index = "google"
    needs_key = True
    supports: ClassVar[frozenset[str]] = frozenset({"page", "site", "language", "region"})
    rate_per_minute = 40.0  # searcher.ts: 40 per minute unless the account has a higher speed level

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body = {**google_body(request, min(request.limit, MAX_RESULTS)), "provider": "google"}
        return json_post(self.url("/"), body, {**bearer(self.api_key()), "X-Respond-With": "no-content"})

    def classify(self, response: httpx.Response) -> bool:
        return self._no_results(response)  # its "no results" comes with an error status: an answer all the same

    def parse(self, response: httpx.Response) -> list[Hit]:
        if self._no_results(response):
            return []
        return [self._hit(rank, item) for rank, item in enumerate(listed_results(response, self.name, "data"), 1)]

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        url = item["url"]
        return self.hit(
            rank,
            item.get("title") or url,
            url,
            snippet=item.get("description") or "",
            # Google's shown dates ("Jan 5, 2024") become ISO; ISO timestamps and relative ages pass through
            date=api_date(item.get("date") or item.get("publishedTime")),
            source=item.get("source"),
        )

    @staticmethod
    def _no_results(response: httpx.Response) -> bool:
        status = response.status_code
        return 400 <= status < 500 and status not in (401, 402, 429) and NO_RESULTS_MARKER in response.text
