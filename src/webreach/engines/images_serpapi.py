"""SerpApi google_images: GET /search.json?engine=google_images, images_results[] with original (the image),
thumbnail, link (the page) and original_width/height. Shares serpapi's key and error mapping. Filters: imgsz,
image_type, image_color and licenses as SerpApi documents them (shared/reference/providers.md)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.clock import Clock
from webreach.config import EngineSettings
from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import json_object
from webreach.engines.serpapi import SerpApi
from webreach.errors import UnavailableError
from webreach.models import Hit, SearchRequest

SIZE: Mapping[str, str] = MappingProxyType({"small": "i", "medium": "m", "large": "l", "wallpaper": "2mp"})
TYPE: Mapping[str, str] = MappingProxyType(
    {"photo": "photo", "clipart": "clipart", "line": "lineart", "gif": "animated", "transparent": "trans"}
)
LICENCE: Mapping[str, str] = MappingProxyType(
    {"public": "f", "share": "f", "share_commercially": "fc", "modify": "fm", "modify_commercially": "fmc"}
)
NO_RESULTS = "hasn't returned any results"


class ImagesSerpapi(ImageSearchEngine, SerpApi):
    """SerpApi, Google Images."""

    name = "images_serpapi"

    def __init__(
        self, settings: EngineSettings | None = None, *, user_agent: str = "Mozilla/5.0", clock: Clock | None = None
    ) -> None:
        super().__init__(settings, user_agent=user_agent, clock=clock)
        # the web engine's `engine` option picks its dialect's index and parameters; images are Google's always
        vars(self).update(index=type(self).index, supports=type(self).supports)

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"engine": "google_images", "q": request.query, "api_key": self.api_key(),
                  "safe": "off" if request.safesearch == "off" else "active"}  # fmt: skip
        if request.language:
            params["hl"] = request.language
        if request.region:
            params["gl"] = request.region
        if request.size:
            params["imgsz"] = SIZE[request.size]
        if request.type:
            params["image_type" if request.type != "transparent" else "image_color"] = TYPE[request.type]
        if request.colour:
            params["image_color"] = "bw" if request.colour == "monochrome" else request.colour
        if request.licence:
            params["licenses"] = LICENCE[request.licence]
        return httpx.Request("GET", self.url("/search.json"), params=params, headers={"Accept": "application/json"})

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        error = data.get("error")
        if error:
            if NO_RESULTS in str(error):
                return []
            raise UnavailableError(f"search failed upstream: {self.redact(str(error))[:200]}", engine=self.name)
        items = [item for item in data.get("images_results") or [] if isinstance(item, dict)]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(items, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        return self.image_hit(
            rank, item.get("original"), page_url=item.get("link"), title=item.get("title"),
            thumbnail_url=item.get("thumbnail"), width=item.get("original_width"),
            height=item.get("original_height"),
        )  # fmt: skip
