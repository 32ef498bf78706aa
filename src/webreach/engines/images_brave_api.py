"""Brave Search API images: GET /res/v1/images/search, results[] with properties.url (the image), thumbnail.src
and the page url. Shares brave_api's key and error mapping; safesearch is off or strict only (moderate asks
strict); Brave has no size, type, colour or licence filter."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import json_object
from webreach.engines.brave_api import BraveApi
from webreach.models import Hit, SearchRequest

MAX_COUNT = 200  # Brave's cap for images
SAFE: Mapping[str, str] = MappingProxyType({"off": "off", "moderate": "strict", "strict": "strict"})


class ImagesBraveApi(ImageSearchEngine, BraveApi):
    """Brave Search API, images endpoint."""

    name = "images_brave_api"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {
            "q": request.query,
            "count": str(min(request.limit, MAX_COUNT)),
            "safesearch": SAFE[request.safesearch],
        }
        headers = {"Accept": "application/json", "X-Subscription-Token": self.api_key()}
        return httpx.Request("GET", self.url("/res/v1/images/search"), params=params, headers=headers)

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        if data.get("type") != "images":
            raise self.parse_error(f"expected an images answer, got type {str(data.get('type'))[:40]!r}")
        items = [item for item in data.get("results") or [] if isinstance(item, dict)]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(items, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        properties = _object(item.get("properties"))
        thumbnail = _object(item.get("thumbnail"))
        return self.image_hit(
            rank, properties.get("url"), page_url=item.get("url"), title=item.get("title"),
            thumbnail_url=thumbnail.get("src"), width=properties.get("width") or thumbnail.get("width"),
            height=properties.get("height") or thumbnail.get("height"), source=item.get("source"),
        )  # fmt: skip


def _object(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
