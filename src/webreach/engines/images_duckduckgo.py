"""DuckDuckGo Images, scraped in two steps: the search page (GET duckduckgo.com/?q=...&iax=images&ia=images) carries
the query's `vqd` token (a warm-up, cached per query by the engine caller), then GET /i.js?o=json&q=...&vqd=...
answers JSON: results[] with image, thumbnail, url (the page), title, width, height and source.

Shares duckduckgo's settings (not its origin: the images live on duckduckgo.com, the web engine scrapes
html.duckduckgo.com) and its block handling (HTTP 202, challenge forms and anomaly redirects). A 403 from i.js
means the token was refused: a block. Filters travel in `f` (size:Large,color:Red,type:photo,license:Public);
safesearch in `p` (off -1, strict 1). DuckDuckGo's images come from Bing's index.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import httpx

from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import json_object
from webreach.engines.duckduckgo import DuckDuckGo, region_code
from webreach.errors import BlockedError
from webreach.models import Hit, SearchRequest

SIZE: Mapping[str, str] = MappingProxyType(
    {"small": "Small", "medium": "Medium", "large": "Large", "wallpaper": "Wallpaper"}
)
LICENCE: Mapping[str, str] = MappingProxyType(
    {"public": "Public", "share": "Share", "share_commercially": "ShareCommercially", "modify": "Modify",
     "modify_commercially": "ModifyCommercially"}
)  # fmt: skip
SAFE: Mapping[str, str] = MappingProxyType({"off": "-1", "moderate": "", "strict": "1"})


class ImagesDuckduckgo(ImageSearchEngine, DuckDuckGo):
    """DuckDuckGo image search (i.js with the page's vqd token)."""

    name = "images_duckduckgo"
    ignores: ClassVar[frozenset[str]] = frozenset({"limit"})  # takes no count: respond() trims

    def warm_up(self, request: SearchRequest) -> httpx.Request | None:
        params = {"q": request.query, "iax": "images", "ia": "images"}
        return httpx.Request("GET", self.url("/"), params=params, headers=self.browser_headers())

    def warm_up_key(self, request: SearchRequest) -> str:
        return f"{self.name}|{request.query}"  # vqd is bound to the query

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        vqd = (tokens or {}).get("vqd")
        if not vqd:
            raise self.parse_error("its search page carried no vqd token, which image results need")
        params = {
            "l": region_code(request),
            "o": "json",
            "q": request.query,
            "vqd": vqd,
            "f": self._filters(request),
            "p": SAFE[request.safesearch],
        }
        headers = self.browser_headers(Accept="application/json, text/javascript, */*; q=0.01", Referer=self.url("/"))
        return httpx.Request("GET", self.url("/i.js"), params=params, headers=headers)

    def _filters(self, request: SearchRequest) -> str:
        colour = {"color": "color", "monochrome": "Monochrome"}.get(
            request.colour or "", (request.colour or "").title()
        )
        parts = {
            "size": SIZE.get(request.size or "", ""),
            "color": colour,
            "type": request.type or "",
            "layout": "",
            "license": LICENCE.get(request.licence or "", ""),
        }
        return ",".join(f"{key}:{value}" if value else "" for key, value in parts.items())

    def classify(self, response: httpx.Response) -> bool:
        if response.status_code == 403 and self.page_url(response).path.endswith("/i.js"):
            raise BlockedError("refused the image request's vqd token (HTTP 403)", engine=self.name)
        return super().classify(response)

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        items = data.get("results")
        if not isinstance(items, list):
            raise self.parse_error("no results list in its i.js answer")
        kept = [item for item in items if isinstance(item, dict)]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(kept, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        return self.image_hit(
            rank, item.get("image"), page_url=item.get("url"), title=item.get("title"),
            thumbnail_url=item.get("thumbnail"), width=item.get("width"), height=item.get("height"),
        )  # fmt: skip
