"""Serper images: POST google.serper.dev/images ({"q", "num", "gl", "hl"}) answers images[] with imageUrl,
imageWidth, imageHeight, thumbnailUrl, source, domain and link (the page), in `position` order. Shares serper's
key and error mapping. Serper documents no safesearch, size, type, colour or licence parameter for images."""

from __future__ import annotations

from typing import Any

import httpx

from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import by_position, json_post
from webreach.engines.serper import Serper
from webreach.models import Hit, SearchRequest

MAX_COUNT = 100


class ImagesSerper(ImageSearchEngine, Serper):
    """Serper's Google Images endpoint."""

    name = "images_serper"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body: dict[str, Any] = {"q": request.query, "num": min(request.limit, MAX_COUNT)}
        if request.region:
            body["gl"] = request.region
        if request.language:
            body["hl"] = request.language
        return json_post(self.url("/images"), body, {"X-API-KEY": self.api_key()})

    def parse(self, response: httpx.Response) -> list[Hit]:
        images = self.answer_block(response, "images")
        items = by_position([item for item in images if isinstance(item, dict)])
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(items, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        return self.image_hit(
            rank, item.get("imageUrl"), page_url=item.get("link"), title=item.get("title"),
            thumbnail_url=item.get("thumbnailUrl"), width=item.get("imageWidth"), height=item.get("imageHeight"),
            source=item.get("domain") or item.get("source"),
        )  # fmt: skip
