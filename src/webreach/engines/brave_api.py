"""Brave Search API: Brave's own index as JSON from api.search.brave.com/res/v1/web/search.

The key travels in the X-Subscription-Token header. Brave's error envelope ({"type": "ErrorResponse",
"error": {"code", "status", "detail", "meta"}}) drives the mapping: a bad key is 422 SUBSCRIPTION_TOKEN_INVALID
(not 401), a 429 is a per-second rate limit unless its meta shows the plan's quota used up, and the wait comes
from Retry-After or, failing that, X-RateLimit-Reset for the window that ran out.

The parser reads web search answers (type "search", results in web.results[]; Brave drops the web block when
nothing matched). The news and videos endpoints answer with top-level results[] of the same page items
(title, url, description, page_age), so those parse too; image results are pictures, not pages, and are refused.
"""

from __future__ import annotations

import html
import re
from datetime import datetime
from typing import Any, ClassVar

import httpx

from webreach.engines._base import Engine, Tokens, retry_after_seconds
from webreach.errors import AuthFailedError, QuotaExhaustedError, RateLimitedError
from webreach.models import Hit, SearchRequest

MAX_COUNT = 20  # Brave's cap on web results per request
FRESHNESS = {"day": "pd", "week": "pw", "month": "pm", "year": "py"}
# search_lang codes where Brave departs from ISO 639-1
SEARCH_LANG = {"zh": "zh-hans", "zh-cn": "zh-hans", "zh-tw": "zh-hant", "zh-hk": "zh-hant", "ja": "jp"}
REGIONAL_LANG = frozenset({"en-gb", "pt-br", "pt-pt"})
PAGE_TYPES = frozenset({"news", "videos"})  # vertical endpoints whose items are pages like web results
TAG = re.compile(r"<[^>]+>")


class BraveApi(Engine):
    """Brave Search API, web endpoint."""

    name = "brave_api"
    kind = "api"
    base_url = "https://api.search.brave.com"
    index = "brave"
    needs_key = True
    supports: ClassVar[frozenset[str]] = frozenset({"page", "site", "freshness", "language", "region", "safesearch"})
    rate_per_minute = 60.0

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        query = f"{request.query} site:{request.site}" if request.site else request.query
        params = {
            "q": query,
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

    def check_response(self, response: httpx.Response) -> None:
        if response.status_code in (422, 429):
            error = self._error(response)
            if error.get("code") == "SUBSCRIPTION_TOKEN_INVALID":
                raise AuthFailedError(f"rejected the API key{self._detail(response)}", engine=self.name)
            if response.status_code == 429:
                if _quota_used_up(error):
                    raise QuotaExhaustedError(f"plan quota used up{self._detail(response)}", engine=self.name)
                raise RateLimitedError(
                    f"rate limited (HTTP 429){self._detail(response)}",
                    engine=self.name,
                    retry_after=retry_after_seconds(response) or reset_seconds(response),
                )
        super().check_response(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = self._json(response)
        kind = data.get("type")
        if kind == "search":
            items = (data.get("web") or {}).get("results") or []
        elif kind in PAGE_TYPES:
            items = data.get("results") or []
        else:
            raise self.parse_error(f"expected a web search answer, got type {kind!r}")
        hits: list[Hit] = []
        for item in items:
            if isinstance(item, dict) and item.get("url") and item.get("title"):
                hits.append(self._hit(len(hits) + 1, item))
        return hits

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        profile = item.get("profile") or {}
        meta_url = item.get("meta_url") or {}
        return self.hit(
            rank,
            plain(item["title"]),
            item["url"],
            snippet=plain(item.get("description") or ""),
            date=item.get("page_age") or shown_date(item.get("age")),
            source=profile.get("name") or meta_url.get("hostname"),
        )

    def _json(self, response: httpx.Response) -> dict[str, Any]:
        try:
            data = response.json()
        except ValueError:
            raise self.parse_error("answered with something other than JSON") from None
        if not isinstance(data, dict):
            raise self.parse_error("answered with JSON that is not an object")
        return data

    @staticmethod
    def _error(response: httpx.Response) -> dict[str, Any]:
        try:
            body = response.json()
        except ValueError:
            return {}
        error = body.get("error") if isinstance(body, dict) else None
        return error if isinstance(error, dict) else {}


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


def plain(text: str) -> str:
    """Text without Brave's <strong> highlighting and HTML entities."""
    return html.unescape(TAG.sub("", text))


def shown_date(text: str | None) -> str | None:
    """Brave's human-readable age ("December 27, 2024") as an ISO date; relative ages stay as shown."""
    if not text:
        return None
    for fmt in ("%B %d, %Y", "%b %d, %Y"):
        try:
            return datetime.strptime(text, fmt).date().isoformat()
        except ValueError:
            continue
    return text
