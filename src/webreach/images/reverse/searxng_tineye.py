"""SearXNG's tineye engine (by URL): GET /search?q=<image URL>&engines=tineye&format=json on the configured
SearXNG instance (the searxng web engine's base URL and settings).

SearXNG's tineye engine turns TinEye's matches into results with template images.html: url (the page), title,
content, img_src (the matching image), thumbnail_src, img_format ("WxH ..."); every one is a copy of the image,
so "exact". An instance without the engine enabled answers with no results and lists it in unresponsive_engines:
that is NotConfiguredError-like trouble on our side, reported as UnavailableError with SearXNG's reason. No real
capture exists (PROVENANCE.md gaps); the fake web's recording follows SearXNG's result shape.
"""

from __future__ import annotations

import re
from typing import Any

import httpx

from webreach.errors import UnavailableError
from webreach.images.reverse._base import ReverseBackend, Send, kept
from webreach.images.reverse.models import ReverseHit, ReverseQuery

RESOLUTION = re.compile(r"\s*([0-9]{1,6})\s*[x×]\s*([0-9]{1,6})(?![0-9.])")


class SearxngTineye(ReverseBackend):
    index = "tineye"
    kind = "api"
    base_url = "http://127.0.0.1:8888"
    needs_instance = True
    takes_url = True

    async def search(self, query: ReverseQuery, send: Send) -> list[ReverseHit]:
        assert query.url is not None
        params = {"q": query.url, "engines": "tineye", "format": "json"}
        headers = self.rules.browser_headers(Accept="application/json")
        return self.parse(self.answer(await send(httpx.Request("GET", self.rules.url("/search"), params=params,
                                                                 headers=headers))))  # fmt: skip

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        found = data.get("results")
        results = [item for item in found if isinstance(item, dict)] if isinstance(found, list) else []
        if not results:
            unresponsive = data.get("unresponsive_engines")
            for entry in unresponsive if isinstance(unresponsive, list) else []:
                if isinstance(entry, list) and entry and entry[0] == "tineye":
                    reason = str(entry[1]) if len(entry) > 1 else "unresponsive"
                    raise UnavailableError(f"SearXNG's tineye engine failed: {reason[:200]}", engine=self.name)
        return kept([self._hit(rank, item) for rank, item in enumerate(results, 1)])

    def _hit(self, rank: int, item: dict[str, Any]) -> ReverseHit | None:
        size = RESOLUTION.match(str(item.get("img_format") or item.get("resolution") or ""))
        return self.hit(
            rank, match="exact", title=item.get("title"), page_url=item.get("url"), image_url=item.get("img_src"),
            thumbnail_url=item.get("thumbnail_src"), width=int(size.group(1)) if size else None,
            height=int(size.group(2)) if size else None,
        )  # fmt: skip
