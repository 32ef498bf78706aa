"""Tavily: an LLM-oriented search API (POST api.tavily.com/search), results already ranked by relevance.

Tavily has a throttled keyless mode, but webreach treats the key as required so usage is attributable and the
rate limit is the documented one. There is no offset, so `page` is not honoured; `max_results` tops out at 20.
With option include_answer = "basic" (or "advanced") Tavily also writes an AI answer, carried beside the hits
(SearchResponse.answer; the desktop-agent profile shows it).
Errors (help center + tavily-python): 401 bad key, 429 rate limit with Retry-After (the keyless envelope puts
retry_after_seconds in the body instead), 432 plan limit and 433 pay-as-you-go limit, both quota.
"""

from __future__ import annotations

import email.utils
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any
from urllib.parse import urlsplit

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.engines._json import bearer, error_object, json_object, json_post, listed_results
from webreach.errors import QuotaExhaustedError
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 20
ANSWER_DEPTHS = frozenset({"basic", "advanced"})
MAX_ANSWER = 8000
QUOTA_STATUSES: Mapping[int, str] = MappingProxyType(
    {432: "plan usage limit exceeded", 433: "pay-as-you-go limit exceeded"}
)


class Tavily(Engine):
    """Tavily /search."""

    name = "tavily"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body: dict[str, Any] = {
            "query": request.query,
            "max_results": min(request.limit, MAX_RESULTS),
            "search_depth": "basic",  # 1 credit; advanced costs 2
            "topic": "general",
            # option include_answer = basic | advanced: Tavily writes an answer beside the results (parse_answer)
            "include_answer": self._answer_depth() or False,
            "include_raw_content": False,
            "include_images": False,
        }
        if request.site:
            body["include_domains"] = [request.site]
        if request.freshness:
            body["time_range"] = request.freshness
        return json_post(self.url("/search"), body, bearer(self.api_key()))

    def classify(self, response: httpx.Response) -> bool:
        status = response.status_code
        if status in QUOTA_STATUSES:
            raise QuotaExhaustedError(
                f"{QUOTA_STATUSES[status]} (HTTP {status}){self._detail(response)}", engine=self.name
            )
        if status == 429:
            raise self.rate_limited(response, _body_retry_after(response))
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        return [self._hit(rank, item) for rank, item in enumerate(listed_results(response, self.name, "results"), 1)]

    def parse_answer(self, response: httpx.Response) -> str | None:
        if not self._answer_depth():
            return None
        answer = json_object(response, self.name).get("answer")
        return " ".join(answer.split())[:MAX_ANSWER] if isinstance(answer, str) and answer.strip() else None

    def _answer_depth(self) -> str | None:
        depth = self.settings.options.get("include_answer", "").strip().lower()
        return depth if depth in ANSWER_DEPTHS else None

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        url = item["url"]
        return self.hit(
            rank,
            item.get("title") or url,
            url,
            snippet=item.get("content") or "",
            date=iso_date(item.get("published_date")),
            source=urlsplit(url).hostname,
        )


def _body_retry_after(response: httpx.Response) -> float | None:
    """retry_after_seconds from the keyless-mode error envelope, when present."""
    value = error_object(response).get("retry_after_seconds")
    return float(value) if isinstance(value, int | float) else None


def iso_date(text: str | None) -> str | None:
    """published_date as ISO 8601: news results carry RFC 2822 dates ("Thu, 07 Mar 2024 14:00:00 GMT")."""
    if not text or not isinstance(text, str):
        return None
    try:
        return email.utils.parsedate_to_datetime(text).isoformat()
    except (TypeError, ValueError, IndexError, OverflowError):
        return text
