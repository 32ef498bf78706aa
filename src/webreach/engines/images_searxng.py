"""SearXNG images: GET <instance>/search?format=json&categories=images, results[] with img_src (the image),
thumbnail_src and url (the page); the size comes from `resolution` or the "2420 x 1613 · jpeg" of `img_format`.
Shares searxng's instance URL. SearXNG's API has no size, type, colour or licence filter."""

from __future__ import annotations

import re
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import json_object
from webreach.engines.searxng import SearXNG
from webreach.models import Hit, SearchRequest

# "1920 x 1080"; an artwork's "261.7 × 114.2 × 287 cm" is not a pixel size
RESOLUTION = re.compile(r"\s*([0-9]{1,6})\s*[x×]\s*([0-9]{1,6})(?![0-9.])")
SAFE: Mapping[str, str] = MappingProxyType({"off": "0", "moderate": "1", "strict": "2"})


class ImagesSearxng(ImageSearchEngine, SearXNG):
    """A SearXNG instance's image category."""

    name = "images_searxng"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"q": request.query, "format": "json", "categories": "images", "safesearch": SAFE[request.safesearch]}
        return httpx.Request(
            "GET", self.url("/search"), params=params, headers=self.browser_headers(Accept="application/json")
        )

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        items = [item for item in data.get("results") or [] if isinstance(item, dict) and item.get("img_src")]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(items, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        width, height = _resolution(item.get("resolution") or item.get("img_format"))
        return self.image_hit(
            rank, item.get("img_src"), page_url=item.get("url"), title=item.get("title"),
            thumbnail_url=item.get("thumbnail_src"), width=width, height=height,
        )  # fmt: skip


def _resolution(value: Any) -> tuple[int | None, int | None]:
    match = RESOLUTION.match(str(value or "")[:100])
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)
