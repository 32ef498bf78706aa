"""SerpApi: Google, Bing or Baidu results as JSON (GET serpapi.com/search.json?engine=..., key in api_key).

One module, three dialects, picked by the `engine` option (google by default). Each dialect has its own
parameters (google: num/start/hl/gl/tbs/safe; bing: count/first/mkt or cc/safeSearch/filters; baidu:
rn/pn/q6/gpc) and its own underlying index, so routing dedupes a SerpApi Google hit with Serper's. Bing's and
Baidu's time filters take absolute dates, computed from the engine's clock as the bing and baidu engines do.
`index`, `supports` and `language_hint` are ClassVars on Engine (each dialect's are its variant in the engine
table, engines/_catalog.py); a SerpApi instance shadows them with instance
attributes set from the option, so `engine.index` is "google", "bing" or "baidu" while `SerpApi.index` keeps
the default, "google".

SerpApi only takes the key as the api_key query parameter, so it is in the request URL: the Gateway's log
filter (search/log_redaction.py) masks it in httpx's request log lines, and every message built from a
response goes through `redact`.

Errors (serpapi.com/api-status-and-error-codes): 401 bad key; 429 is either the hourly throughput limit or
"Your account has run out of searches." (quota). A 200 whose search_metadata.status is "Error" failed upstream,
except the documented empty case ("... hasn't returned any results", organic_results_state "Fully empty").
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.clock import Clock
from webreach.config import EngineSettings
from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._catalog import check_choice, option_value
from webreach.engines._dates import api_date
from webreach.engines._freshness import baidu_gpc, bing_filters
from webreach.engines._json import by_position, items_with, json_object, result_list
from webreach.errors import QuotaExhaustedError, UnavailableError
from webreach.models import Hit, SearchRequest

GOOGLE_TBS: Mapping[str, str] = MappingProxyType({"day": "qdr:d", "week": "qdr:w", "month": "qdr:m", "year": "qdr:y"})
GOOGLE_SAFE: Mapping[str, str] = MappingProxyType({"off": "off", "strict": "active"})
BING_SAFE: Mapping[str, str] = MappingProxyType({"off": "Off", "moderate": "Moderate", "strict": "Strict"})
EMPTY_MARKERS = ("hasn't returned any results", "Fully empty")


# results one request of each dialect returns at most; which dialects exist, and each one's index and parameters,
# are the table's (engines/_catalog.py: the `engine` option's choices and variants)
MAX_RESULTS: Mapping[str, int] = MappingProxyType({"google": 100, "bing": 50, "baidu": 50})


class SerpApi(Engine):
    """SerpApi search.json with engine=google|bing|baidu."""

    name = "serpapi"

    def __init__(
        self, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
    ) -> None:
        super().__init__(settings, user_agent=user_agent, clock=clock)
        self.engine = option_value(self, self.settings)
        variant = self.variants.get(self.engine)
        if variant is not None:
            # per-instance values shadow the ClassVars (mypy forbids assigning ClassVars through self)
            vars(self).update(index=variant.index, supports=variant.supports, language_hint=variant.language_hint)

    def unsupported(self, request: SearchRequest) -> tuple[str, ...]:
        missing = super().unsupported(request)
        if self.engine == "bing" and request.language and not request.region and "language" not in missing:
            # Bing takes a language only as part of a market (mkt=en-US), which needs a region too
            missing = (*missing, "language")
        return missing

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        count = min(request.limit, MAX_RESULTS[check_choice(self, self.settings)])
        params = {"engine": self.engine, "api_key": self.api_key()}
        if self.engine == "google":
            params.update(google_params(request, count))
        elif self.engine == "bing":
            params.update(bing_params(request, count, self.clock.now()))
        else:
            params.update(baidu_params(request, count, self.clock.now()))
        return httpx.Request("GET", self.url("/search.json"), params=params, headers={"Accept": "application/json"})

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code == 429 and "run out of searches" in response.text:
            raise QuotaExhaustedError(f"account has run out of searches{self._detail(response)}", engine=self.name)
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        error = data.get("error")
        status = (data.get("search_metadata") or {}).get("status")
        state = (data.get("search_information") or {}).get("organic_results_state")
        if any(marker in f"{error} {state}" for marker in EMPTY_MARKERS):
            return []
        if error or status == "Error":
            raise UnavailableError(f"search failed upstream: {self.redact(str(error or status))}", engine=self.name)
        organic = result_list(data, "organic_results", self.name)
        return [self._hit(rank, item) for rank, item in enumerate(by_position(items_with(organic, "link")), 1)]

    def _hit(self, rank: int, item: dict[str, Any]) -> Hit:
        return self.hit(
            rank,
            item.get("title") or item["link"],
            item["link"],  # Baidu's may be a baidu.com/link?url= redirect: kept, the reader resolves it
            snippet=item.get("snippet") or "",
            date=api_date(item.get("date")),
            source=item.get("source"),
            display_url=item.get("displayed_link"),
        )


def google_params(request: SearchRequest, count: int) -> dict[str, str]:
    """engine=google: num/start, hl/gl, tbs=qdr:x, safe=active|off, site: in q."""
    params = {"q": query_with_site(request), "num": str(count)}
    if request.page > 1:
        params["start"] = str((request.page - 1) * count)
    if request.language:
        params["hl"] = request.language
    if request.region:
        params["gl"] = request.region
    if request.freshness:
        params["tbs"] = GOOGLE_TBS[request.freshness]
    if request.safesearch in GOOGLE_SAFE:
        params["safe"] = GOOGLE_SAFE[request.safesearch]
    return params


def bing_params(request: SearchRequest, count: int, now: float) -> dict[str, str]:
    """engine=bing: count/first (1-based), mkt=<lang>-<COUNTRY> or cc alone (they exclude each other), filters."""
    params = {"q": query_with_site(request), "count": str(count), "safeSearch": BING_SAFE[request.safesearch]}
    if request.page > 1:
        params["first"] = str((request.page - 1) * count + 1)
    if request.freshness:
        params["filters"] = bing_filters(request.freshness, now)
    if request.region and request.language:
        params["mkt"] = f"{request.language.split('-')[0]}-{request.region.upper()}"
    elif request.region:
        params["cc"] = request.region
    return params


def baidu_params(request: SearchRequest, count: int, now: float) -> dict[str, str]:
    """engine=baidu: rn/pn (an item offset), q6 for the site, gpc for the time window."""
    params = {"q": request.query, "rn": str(count)}
    if request.page > 1:
        params["pn"] = str((request.page - 1) * count)
    if request.site:
        params["q6"] = request.site
    if request.freshness:
        params["gpc"] = baidu_gpc(request.freshness, now)
    return params
