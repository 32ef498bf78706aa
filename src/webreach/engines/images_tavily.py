"""Tavily images: POST api.tavily.com/search with include_images (and include_image_descriptions) answers a
query-level images[]: URL strings, or {url, description} objects when descriptions are asked for. Tavily names
no page, size or thumbnail for an image, so a hit's page is the image itself and its title the description.
Shares tavily's key and error mapping (quota statuses, 429 with its body's retry_after_seconds). Tavily has no
safesearch or image filters."""

from __future__ import annotations

from typing import Any

import httpx

from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import bearer, json_object, json_post
from webreach.engines.tavily import Tavily
from webreach.models import Hit, SearchRequest

MAX_RESULTS = 20


class ImagesTavily(ImageSearchEngine, Tavily):
    """Tavily search, its images list."""

    name = "images_tavily"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        body: dict[str, Any] = {
            "query": request.query,
            "max_results": min(request.limit, MAX_RESULTS),
            "search_depth": "basic",
            "include_images": True,
            "include_image_descriptions": True,
            "include_answer": False,
            "include_raw_content": False,
        }
        return json_post(self.url("/search"), body, bearer(self.api_key()))

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        images = data.get("images")
        if images is None and isinstance(data.get("results"), list):
            return []  # an answer without images: none for this query
        if not isinstance(images, list):
            raise self.parse_error("no images list in the answer")
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(images, 1))

    def _image(self, rank: int, item: Any) -> Hit | None:
        if isinstance(item, str):
            return self.image_hit(rank, item)
        if isinstance(item, dict):
            return self.image_hit(rank, item.get("url"), title=item.get("description"))
        return None
