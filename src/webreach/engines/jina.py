"""Jina search (s.jina.ai): a web SERP as JSON, Google-backed, with a key (Authorization: Bearer) or keyless.

Keyless is opt-in: `[engines.jina] options = {keyless = "true"}` sends no Authorization header and paces the
engine at the anonymous free tier's rate (`keyless_rate` in its row of engines/_catalog.py, 100 a minute: the
anonymous free tier the multi-agent contract plans for (E); rate_per_minute overrides it). Jina has
refused anonymous search before (providers.md A4: AuthenticationRequiredError); when it does, the call fails
with auth_failed saying to set a key (a free one at jina.ai) or to take jina out of auto_order, and the breaker
suspends it like any rejected credential. Without the option and without a key the engine is not configured, so
the default auto order never tries an anonymous Jina the operator did not ask for.

We POST {"q", "num", ...} with Accept: application/json and X-Respond-With: no-content, which returns the SERP
alone (title, url, description, date) instead of crawling every hit: faster, cheaper, and all a search needs.
The upstream is pinned to Google ("provider": "google"; Jina has switched defaults before), so the index is Google's.
Jina's civkit envelope puts the HTTP status in the first three digits of its 5-digit `status`: 401 auth,
402 (40201/40203) credits or balance spent, 429 rate limit with Retry-After. An empty SERP is an assertion
failure ("No search results available for query ..."), a 4xx that means zero hits, not an error.
"""

from __future__ import annotations

from typing import Any

import httpx

from webreach.config import EngineSettings
from webreach.engines._base import Engine, Tokens
from webreach.engines._dates import api_date
from webreach.engines._json import bearer, google_body, json_post, listed_results
from webreach.errors import AuthFailedError
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 20
KEY_HINT = (
    "s.jina.ai refuses anonymous search: set WEBREACH_ENGINES__JINA__API_KEY (a free key at https://jina.ai), "
    "or take jina out of auto_order."
)
NO_RESULTS_MARKER = "No search results available"


class Jina(Engine):
    """Jina s.jina.ai search."""

    name = "jina"

    def __init__(self, settings: EngineSettings | None = None, **kwargs: Any) -> None:
        super().__init__(settings, **kwargs)
        if self.keyless and self.settings.rate_per_minute is None:  # keyless: the option, and no key (Provider)
            self.settings = self.settings.model_copy(update={"rate_per_minute": self.keyless_rate})

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body = {**google_body(request, min(request.limit, MAX_RESULTS)), "provider": "google"}
        auth = {} if self.keyless else bearer(self.api_key())
        return json_post(self.url("/"), body, {**auth, "X-Respond-With": "no-content"})

    def classify(self, response: httpx.Response) -> bool:
        if self.keyless and response.status_code in (401, 403):
            raise AuthFailedError(
                f"refused a search without a key (HTTP {response.status_code})", engine=self.name, hint=KEY_HINT
            )
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
