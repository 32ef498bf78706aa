"""Brave Search API: Brave's own index as JSON from api.search.brave.com/res/v1/web/search.

The key travels in the X-Subscription-Token header. Brave's error envelope ({"type": "ErrorResponse",
"error": {"code", "status", "detail", "meta"}}) drives the mapping: a bad key is 422 SUBSCRIPTION_TOKEN_INVALID
(not 401) while other 422s are bad requests, a 429 is a per-second rate limit unless its meta shows the plan's
quota used up, and the wait comes from Retry-After or, failing that, X-RateLimit-Reset for the window that ran
out.

The parser reads web search answers (type "search", results in web.results[]; Brave drops the web block when
nothing matched). The news and videos endpoints answer with top-level results[] of the same page items
(title, url, description, page_age), so those parse too; image results are pictures, not pages, and are refused.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._dates import api_date
from webreach.engines._html import plain_text
from webreach.engines._json import error_object, items_with, json_object
from webreach.errors import AuthFailedError, QuotaExhaustedError
from webreach.models import Hit, SearchRequest

MAX_COUNT = 20  # Brave's cap on web results per request
FRESHNESS: Mapping[str, str] = MappingProxyType({"day": "pd", "week": "pw", "month": "pm", "year": "py"})
# search_lang codes where Brave departs from ISO 639-1
SEARCH_LANG: Mapping[str, str] = MappingProxyType(
    {"zh": "zh-hans", "zh-cn": "zh-hans", "zh-tw": "zh-hant", "zh-hk": "zh-hant", "ja": "jp"}
)
REGIONAL_LANG = frozenset({"en-gb", "pt-br", "pt-pt"})
PAGE_TYPES = frozenset({"news", "videos"})  # vertical endpoints whose items are pages like web results


class BraveApi(Engine):
    """Brave Search API, web endpoint."""

    name = "brave_api"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {
            "q": query_with_site(request),
            "count": str(min(request.limit, MAX_COUNT)),
            "safesearch": request.safesearch,
            "result_filter": "web",
            "text_decorations": "false",
        }
        if request.page > 1:
            params["offset"] = str(request.page - 1)  # a page index (skips offset * count), not an item offset
        if request.freshness:
            params["freshness"] = FRESHNESS[request.freshness]
        if request.language:
            params["search_lang"] = search_lang(request.language)
        if request.region:
            params["country"] = request.region.upper()
        headers = {"Accept": "application/json", "X-Subscription-Token": self.api_key()}
        return httpx.Request("GET", self.url("/res/v1/web/search"), params=params, headers=headers)

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code in (422, 429):
            error = error_object(response)
            if error.get("code") == "SUBSCRIPTION_TOKEN_INVALID":
                raise AuthFailedError(f"rejected the API key{self._detail(response)}", engine=self.name)
            if response.status_code == 429:
                if _quota_used_up(error):
                    raise QuotaExhaustedError(f"plan quota used up{self._detail(response)}", engine=self.name)
                raise self.rate_limited(response, reset_seconds(response))
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        kind = data.get("type")
        if kind == "search":
            items = (data.get("web") or {}).get("results") or []
        elif kind in PAGE_TYPES:
            items = data.get("results") or []
        else:
            raise self.parse_error(f"expected a web search answer, got type {kind!r}")
        pages = [item for item in items_with(items, "url") if item.get("title")]
        return [self._hit(rank, item) for rank, item in enumerate(pages, 1)]

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        profile = item.get("profile") or {}
        meta_url = item.get("meta_url") or {}
        return self.hit(
            rank,
            plain_text(item["title"]),
            item["url"],
            snippet=plain_text(item.get("description") or ""),
            # "December 27, 2024" becomes ISO; relative ages stay as shown
            date=item.get("page_age") or api_date(item.get("age")),
            source=profile.get("name") or meta_url.get("hostname"),
        )


def search_lang(language: str) -> str:
    """Brave's search_lang for an ISO 639-1 code (with a region suffix where Brave has one)."""
    if language in SEARCH_LANG or language in REGIONAL_LANG:
        return SEARCH_LANG.get(language, language)
    primary = language.split("-")[0]
    return SEARCH_LANG.get(primary, primary)


def reset_seconds(response: httpx.Response) -> float | None:
    """Seconds until the exhausted rate-limit window resets (X-RateLimit-Reset pairs with -Remaining)."""
    resets = _numbers(response.headers.get("x-ratelimit-reset", ""))
    remaining = _numbers(response.headers.get("x-ratelimit-remaining", ""))
    if not resets:
        return None
    exhausted = [reset for reset, left in zip(resets, remaining, strict=False) if left == 0]
    return max(exhausted) if exhausted else resets[0]


def _numbers(header: str) -> list[float]:
    if not header.isascii():  # float() reads "١٢" as 12: HTTP numbers are ASCII digits
        return []
    try:
        return [float(part) for part in header.split(",") if part.strip()]
    except ValueError:
        return []


def _quota_used_up(error: dict[str, Any]) -> bool:
    if error.get("code") == "QUOTA_LIMITED":
        return True
    meta = error.get("meta") or {}
    limit, used = meta.get("quota_limit"), meta.get("quota_current")
    return isinstance(limit, int) and isinstance(used, int) and limit > 0 and used >= limit
