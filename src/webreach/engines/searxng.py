"""SearXNG: the JSON API of a self-hosted (or trusted) SearXNG instance, a keyless metasearch over many engines.

Decisions:
- There is no public default: the instance is the operator's. Without `base_url` in the configuration the
  engine is not configured (NotConfiguredError from ensure_configured), so auto mode leaves it out.
- Instances answer JSON only when `json` is listed in `search.formats` of their settings.yml; otherwise they
  answer 403 with Werkzeug's plain Forbidden page. That is a configuration problem of the instance that no
  retry or wait fixes, and it has nothing to do with credentials, so it is reported as NotConfiguredError
  (code not_configured) with a hint saying exactly what to change, rather than as auth_failed or a temporary
  block. Other 403s are not that: a Cloudflare or reCAPTCHA challenge in front of the instance is a CAPTCHA
  (the base class checks for one before anything else), and any other 403 is a proxy or firewall refusing us
  (BlockedError, kind blocked).
- The instance's limiter only lets browser-like clients through, so requests carry browser headers with an
  Accept that includes text/html, even though the answer is JSON (Open WebUI does the same).
- `language` is sent as `en` or, with a region, `en-US`; a region alone has no SearXNG parameter and is
  reported as unsupported. `site` goes into the query as `site:`, which SearXNG passes to its engines.
- A result list that is empty while `unresponsive_engines` names failures is not an answer: every engine behind
  the instance failed (CAPTCHA, timeouts), so it is UnavailableError, with the reasons in the message.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar
from urllib.parse import urlsplit

import httpx

from webreach.engines._base import Engine, Tokens, query_with_site
from webreach.engines._html import plain_text
from webreach.engines._json import json_object
from webreach.errors import Arg, BlockedError, NotConfiguredError, UnavailableError, hint
from webreach.models import Hit, SearchRequest

SAFESEARCH: Mapping[str, str] = MappingProxyType({"off": "0", "moderate": "1", "strict": "2"})
ENABLE_JSON_HINT = hint(
    "Enable JSON on the instance: add `json` to `search.formats` in its settings.yml and restart it, "
    "or point WEBREACH_ENGINES__SEARXNG__BASE_URL at an instance that allows it; meanwhile use {}.",
    Arg("engine", "auto"),
)
# Werkzeug's description of 403 Forbidden, the page SearXNG's flask.abort(403) answers with
FORBIDDEN_PAGE_MARKER = "the permission to access the requested resource"


class SearXNG(Engine):
    """Queries <base_url>/search?format=json of a configured SearXNG instance."""

    name = "searxng"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims

    def unsupported(self, request: SearchRequest) -> tuple[str, ...]:
        # a region only travels inside the language (en-US), so alone it cannot be honoured
        missing = super().unsupported(request)
        if request.region and not request.language:
            missing = (*missing, "region")
        return missing

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {
            "q": query_with_site(request),
            "format": "json",
            "pageno": str(request.page),
            "safesearch": SAFESEARCH[request.safesearch],
        }
        if request.freshness:
            params["time_range"] = request.freshness
        if request.language:
            params["language"] = _locale(request.language, request.region)
        headers = self.browser_headers(Accept="application/json, text/html;q=0.9, */*;q=0.8")
        return httpx.Request("GET", self.url("/search"), params=params, headers=headers)

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code == 403:
            if FORBIDDEN_PAGE_MARKER not in response.text.replace("&#39;", "'"):
                raise BlockedError(
                    "refused us (HTTP 403) with a page that is not SearXNG's own: a proxy or firewall in front of "
                    "the instance",
                    engine=self.name,
                )
            raise NotConfiguredError(
                "refused format=json (HTTP 403): the instance does not list json in search.formats",
                engine=self.name,
                hint=ENABLE_JSON_HINT,
            )
        return False

    def parse(self, response: httpx.Response) -> list[Hit]:
        # an HTML error page or a proxy's login page instead of JSON is a ParseError too
        data = json_object(response, self.name)
        if not isinstance(data.get("results"), list):
            raise self.parse_error("the answer is not SearXNG's JSON (no results list)")
        hits: list[Hit] = []
        for item in data["results"]:
            hit = self._hit(item, len(hits) + 1)
            if hit is not None:
                hits.append(hit)
        failures = data.get("unresponsive_engines") or []
        if not hits and failures:
            reasons = ", ".join(_failure(f) for f in failures)
            raise UnavailableError(f"every engine behind the instance failed: {reasons}", engine=self.name)
        return hits

    def _hit(self, item: Any, rank: int) -> Hit | None:
        if not isinstance(item, dict):
            return None
        url = str(item.get("url") or "")
        try:
            parts = urlsplit(url)
        except ValueError:  # a malformed IPv6 host: no link to follow
            return None
        title = _plain(item.get("title"))
        if parts.scheme not in ("http", "https") or not parts.netloc or not title:
            return None
        published = item.get("publishedDate")
        return self.hit(
            rank,
            title,
            url,
            snippet=_plain(item.get("content")),
            date=str(published) if published else None,
            source=str(item.get("engine") or "") or None,
        )


def _locale(language: str, region: str | None) -> str:
    base, _, country = language.partition("-")
    country = country or region or ""
    return f"{base}-{country.upper()}" if country else base


def _plain(value: Any) -> str:
    """Plain text: SearXNG's titles and snippets are text, but some upstream engines leave tags or entities."""
    return plain_text(str(value)) if value else ""


def _failure(entry: Any) -> str:
    if isinstance(entry, list | tuple) and len(entry) >= 2:
        return f"{entry[0]} ({entry[1]})"
    return str(entry)
