"""Bocha (博查) web search API: POST api.bochaai.com/v1/web-search, strong on Chinese content, prepaid key.

Bocha answers in the Bing Web Search v7 shape wrapped in its own envelope ({"code", "log_id", "msg", "data":
{"webPages": {"value": [...]}}}). The parser also reads the bare Bing v7 shape (top-level webPages.value[]),
so Bing-compatible responses parse here too; Microsoft retired the Bing API itself in August 2025, so webreach
has no bing_api engine. In Bocha's shape dateLastCrawled is the publish time (named for Bing compatibility);
in Bing's it is the crawl time, so it is only used as a date for Bocha.

Errors (Bocha's 异常码 table): 400 "The API KEY is missing" and 401 "Invalid API KEY" are auth, any other 400
a bad request, 403 "You do not have enough money" is a spent balance (quota), 429 the request limit, 500
upstream. The same codes may arrive in the body's `code` of an HTTP 200, and map the same way.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.engines._json import bearer, items_with, json_object, json_post
from webreach.errors import (
    AuthFailedError,
    BadRequestError,
    QuotaExhaustedError,
    RateLimitedError,
    UnavailableError,
)
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 50
FRESHNESS: Mapping[str, str] = MappingProxyType(
    {"day": "oneDay", "week": "oneWeek", "month": "oneMonth", "year": "oneYear"}
)


class Bocha(Engine):
    """Bocha /v1/web-search."""

    name = "bocha"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body: dict[str, Any] = {
            "query": request.query,
            "count": min(request.limit, MAX_RESULTS),
            "page": request.page,
            "freshness": FRESHNESS[request.freshness] if request.freshness else "noLimit",
            "summary": False,  # the short snippet is enough for a result list
        }
        if request.site:
            body["include"] = request.site
        return json_post(self.url("/v1/web-search"), body, bearer(self.api_key()))

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code in (400, 403):
            self._raise_for_code(response.status_code, response)
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        code = data.get("code")
        if code is not None and str(code) != "200":
            self._raise_for_code(int(code) if str(code).isascii() and str(code).isdigit() else 500, response)
        # Bocha wraps the Bing-shaped answer in "data"; a bare Bing v7 answer has it at the top level
        wrapped = isinstance(data.get("data"), dict)
        answer: dict[str, Any] = data["data"] if wrapped else data
        pages = answer.get("webPages")
        if pages is None and (answer.get("_type") == "SearchResponse" or "queryContext" in answer):
            return []  # a well-formed answer without a webPages block: nothing matched
        values = pages.get("value") if isinstance(pages, dict) else None
        if not isinstance(values, list):
            raise self.parse_error("no webPages.value list in the answer")
        return [self._hit(rank, item, wrapped) for rank, item in enumerate(items_with(values, "url"), 1)]

    def _hit(self, rank: int, item: dict[str, Any], bocha_shape: bool) -> Hit:
        url = item["url"]
        published = item.get("datePublished") or (item.get("dateLastCrawled") if bocha_shape else None)
        return self.hit(
            rank,
            item.get("name") or url,
            url,
            snippet=item.get("snippet") or item.get("summary") or "",
            date=iso_date(published),
            source=item.get("siteName"),
            display_url=item.get("displayUrl"),
        )

    def _raise_for_code(self, code: int, response: httpx.Response) -> None:
        """Map Bocha's status codes (HTTP or in-body) to errors; codes it does not use for errors pass."""
        detail = self._detail(response)
        text = response.text.lower()
        if code == 401 or (code == 400 and "api key" in text):
            raise AuthFailedError(f"rejected the API key (code {code}){detail}", engine=self.name)
        if code == 403 and "money" in text:
            raise QuotaExhaustedError(f"account balance used up (code 403){detail}", engine=self.name)
        if code == 429:
            raise RateLimitedError(f"rate limited (code 429){detail}", engine=self.name)
        if response.status_code == 200 and code in (400, 422):
            raise BadRequestError(f"refused the request (code {code}){detail}", engine=self.name)
        if response.status_code == 200 and code >= 400:
            raise UnavailableError(f"answered with error code {code}{detail}", engine=self.name)


def iso_date(text: str | None) -> str | None:
    """An ISO timestamp tidied (Bing's 7-digit fractions dropped; a bare midnight becomes the date alone)."""
    if not text or not isinstance(text, str):
        return None
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.tzinfo is None and moment.time() == datetime.min.time():
        return moment.date().isoformat()
    return moment.replace(microsecond=0).isoformat()
