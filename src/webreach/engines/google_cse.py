"""Google Programmable Search Engine (Custom Search JSON API): GET www.googleapis.com/customsearch/v1.

It needs two settings: the API key and the engine id, `cx`, from options["cx"]; ensure_configured reports
either one missing. (build_request leaves a missing cx out rather than failing, so a request can still be built
for inspection; Google refuses it.) Google closed the API to new customers and ends it on 2027-01-01.

Paging is 1-based `start` with at most 10 per request and start + num <= 100. There is no `items` key at all
when nothing matched. Dates come from pagemap metatags when present, else from the "Mar 17, 2023 ... " prefix
Google puts in front of dated snippets (which is then cut from the snippet). Errors are Google API errors
({"error": {"code", "message", "errors": [{"reason"}], "status"}}): an invalid key is 400 keyInvalid (other 400s
are bad requests), the daily quota is 429 (or the older 403 dailyLimitExceeded) with a per-day message, other
429s are per-minute limits.
The key travels in the X-Goog-Api-Key header, never in the URL: Google's API front end takes an API key
either as `key=` or in that header (cloud.google.com/docs/authentication/api-keys-use), and a URL ends up in
logs (httpx logs every request URL at INFO), proxies and error texts where a header does not.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Engine, Tokens
from webreach.engines._dates import split_ellipsis_date
from webreach.engines._json import error_object, items_with, json_object, result_list
from webreach.errors import AuthFailedError, QuotaExhaustedError
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 10
DATE_RESTRICT: Mapping[str, str] = MappingProxyType({"day": "d1", "week": "w1", "month": "m1", "year": "y1"})
SAFE: Mapping[str, str] = MappingProxyType({"off": "off", "strict": "active"})
TRADITIONAL_CHINESE = frozenset({"zh-tw", "zh-hk", "zh-hant"})
DATE_METATAGS = ("article:published_time", "og:updated_time", "article:modified_time", "date")
QUOTA_REASONS = frozenset({"dailyLimitExceeded", "quotaExceeded", "billingNotEnabled"})
KEY_REASONS = frozenset({"keyInvalid", "API_KEY_INVALID"})  # the legacy reason, and the newer ErrorInfo one


class GoogleCse(Engine):
    """Google Custom Search JSON API."""

    name = "google_cse"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        count = min(request.limit, MAX_RESULTS)
        params = {"q": request.query, "num": str(count)}
        cx = self.settings.options.get("cx")
        if cx:
            params["cx"] = cx
        if request.page > 1:
            params["start"] = str((request.page - 1) * count + 1)
        if request.site:
            params.update(siteSearch=request.site, siteSearchFilter="i")
        if request.freshness:
            params["dateRestrict"] = DATE_RESTRICT[request.freshness]
        if request.language:
            params.update(lr=language_restrict(request.language), hl=request.language)
        if request.region:
            params["gl"] = request.region
        if request.safesearch in SAFE:
            params["safe"] = SAFE[request.safesearch]
        headers = {"Accept": "application/json", "X-Goog-Api-Key": self.api_key()}
        return httpx.Request("GET", self.url("/customsearch/v1"), params=params, headers=headers)

    def classify(self, response: httpx.Response) -> bool:
        status = response.status_code
        if status in (400, 403, 429):
            error = error_object(response)
            reasons = _reasons(error)
            per_day = "per day" in str(error.get("message", "")).lower() or bool(reasons & QUOTA_REASONS)
            if status == 400 and reasons & KEY_REASONS:
                raise AuthFailedError(f"rejected the API key (HTTP 400){self._detail(response)}", engine=self.name)
            if status in (403, 429) and per_day:
                raise QuotaExhaustedError(
                    f"daily quota used up (HTTP {status}){self._detail(response)}", engine=self.name
                )
            if status == 429:
                raise self.rate_limited(response)
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        if data.get("items") is None and isinstance(data.get("searchInformation"), dict):
            return []  # Google leaves out `items` when nothing matched
        items = result_list(data, "items", self.name)
        return [self._hit(rank, item) for rank, item in enumerate(items_with(items, "link"), 1)]

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        shown, snippet = split_ellipsis_date(item.get("snippet") or "")
        return self.hit(
            rank,
            item.get("title") or item["link"],
            item["link"],
            snippet=snippet,
            date=metatag_date(item) or shown,
            source=item.get("displayLink"),
            display_url=item.get("formattedUrl"),
        )


def language_restrict(language: str) -> str:
    """lr for a language code: lang_xx, with Google's two Chinese variants spelled out."""
    if language.startswith("zh"):
        return "lang_zh-TW" if language in TRADITIONAL_CHINESE else "lang_zh-CN"
    return f"lang_{language.split('-')[0]}"


def metatag_date(item: dict[str, Any]) -> str | None:
    """A publication date from the page's own metatags, when Google passes them on."""
    pagemap = item.get("pagemap")
    metatags = pagemap.get("metatags") if isinstance(pagemap, dict) else None
    tags = metatags[0] if isinstance(metatags, list) and metatags and isinstance(metatags[0], dict) else {}
    for name in DATE_METATAGS:
        if isinstance(tags.get(name), str) and tags[name]:
            return str(tags[name])
    return None


def _reasons(error: dict[str, Any]) -> set[str]:
    """Every reason code in a Google API error: legacy errors[].reason and ErrorInfo details[].reason."""
    entries = [*(error.get("errors") or []), *(error.get("details") or [])]
    return {str(e["reason"]) for e in entries if isinstance(e, dict) and e.get("reason")}
