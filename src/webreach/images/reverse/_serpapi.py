"""What the SerpApi reverse backends share: a base class (the GET with api_key for the image's URL, SerpApi's
answer and errors read); each backend names its SerpApi engine and URL parameter and parses its own lists.

SerpApi's conventions (serpapi.com/api-status-and-error-codes), as engines/serpapi.py reads them for web search:
401 bad key, 429 either the hourly limit or "Your account has run out of searches." (quota), a 200 whose body
has `error` failed upstream except the documented empty case ("... hasn't returned any results").
"""

from __future__ import annotations

from typing import Any

import httpx

from webreach.errors import QuotaExhaustedError, UnavailableError
from webreach.images.reverse._base import ReverseBackend, Send
from webreach.images.reverse.models import ReverseHit, ReverseQuery

EMPTY_MARKERS = ("hasn't returned any results", "Fully empty")


def serpapi_request(backend: ReverseBackend, params: dict[str, str]) -> httpx.Request:
    """GET /search.json with `params` and the key (in the query: SerpApi takes it nowhere else)."""
    query = {**params, "api_key": backend.rules.api_key()}
    return httpx.Request("GET", backend.rules.url("/search.json"), params=query, headers={"Accept": "application/json"})


def serpapi_answer(backend: ReverseBackend, response: httpx.Response) -> dict[str, Any] | None:
    """The answer's JSON object; None for SerpApi's documented "no results"; typed errors otherwise."""
    if response.status_code == 429 and "run out of searches" in response.text:
        raise QuotaExhaustedError("account has run out of searches", engine=backend.name)
    data = backend.answer(response)
    error = data.get("error")
    state = (data.get("search_information") or {}).get("organic_results_state")
    if any(marker in f"{error} {state}" for marker in EMPTY_MARKERS):
        return None
    if error or (data.get("search_metadata") or {}).get("status") == "Error":
        raise UnavailableError(f"search failed upstream: {backend.rules.redact(str(error))}", engine=backend.name)
    return data


def items(data: dict[str, Any], key: str) -> list[dict[str, Any]]:
    """The dict entries of the list `key` (anything else in it is skipped)."""
    value = data.get(key)
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


class SerpApiReverse(ReverseBackend):
    """A SerpApi engine that takes the image by URL: `serpapi_engine` asked with the URL in `url_parameter`."""

    kind = "api"
    base_url = "https://serpapi.com"
    takes_url = True
    serpapi_engine = ""
    url_parameter = "url"

    async def search(self, query: ReverseQuery, send: Send) -> list[ReverseHit]:
        assert query.url is not None  # ready() refused a query without one
        params = {"engine": self.serpapi_engine, self.url_parameter: query.url}
        data = serpapi_answer(self, await send(serpapi_request(self, params)))
        return self.parse(data or {})

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        raise NotImplementedError
