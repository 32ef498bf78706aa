"""Google Programmable Search (Custom Search JSON API) images: GET /customsearch/v1?searchType=image, items[] with
link (the image) and image{contextLink, thumbnailLink, width, height}. Shares google_cse's key, engine id (cx) and
error mapping. Filters: imgSize, imgType, imgColorType / imgDominantColor and rights, as the API documents them."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import httpx

from webreach.engines._base import Tokens
from webreach.engines._images import ImageSearchEngine
from webreach.engines._json import json_object
from webreach.engines.google_cse import GoogleCse
from webreach.models import Hit, SearchRequest

MAX_COUNT = 10  # the API's cap per request
SIZE: Mapping[str, str] = MappingProxyType(
    {"small": "small", "medium": "medium", "large": "large", "wallpaper": "huge"}
)
TYPE: Mapping[str, str] = MappingProxyType(
    {"photo": "photo", "clipart": "clipart", "line": "lineart", "gif": "animated", "transparent": "trans"}
)
RIGHTS: Mapping[str, str] = MappingProxyType(
    {
        "public": "cc_publicdomain",
        "share": "cc_publicdomain|cc_attribute|cc_sharealike",
        "share_commercially": "cc_publicdomain|cc_attribute|cc_sharealike|cc_nonderived",
        "modify": "cc_publicdomain|cc_attribute|cc_sharealike|cc_noncommercial",
        "modify_commercially": "cc_publicdomain|cc_attribute|cc_sharealike",
    }
)


class ImagesGoogleCse(ImageSearchEngine, GoogleCse):
    """Google Custom Search JSON API, image search."""

    name = "images_google_cse"

    def build_request(self, request: SearchRequest, tokens: Tokens | None = None) -> httpx.Request:
        params = {"q": request.query, "searchType": "image", "num": str(min(request.limit, MAX_COUNT)),
                  "safe": "off" if request.safesearch == "off" else "active"}  # fmt: skip
        cx = self.settings.options.get("cx")
        if cx:
            params["cx"] = cx
        if request.language:
            params["lr"] = f"lang_{request.language}"
        if request.size:
            params["imgSize"] = SIZE[request.size]
        if request.type == "transparent":
            params["imgColorType"] = "trans"
        elif request.type:
            params["imgType"] = TYPE[request.type]
        if request.colour in ("color", "monochrome"):
            params["imgColorType"] = "color" if request.colour == "color" else "mono"
        elif request.colour:
            params["imgDominantColor"] = request.colour
        if request.licence:
            params["rights"] = RIGHTS[request.licence]
        headers = {"Accept": "application/json", "X-Goog-Api-Key": self.api_key()}
        return httpx.Request("GET", self.url("/customsearch/v1"), params=params, headers=headers)

    def parse(self, response: httpx.Response) -> list[Hit]:
        data = json_object(response, self.name)
        items = [item for item in data.get("items") or [] if isinstance(item, dict)]
        return self.image_hits(self._image(rank, item) for rank, item in enumerate(items, 1))

    def _image(self, rank: int, item: dict[str, Any]) -> Hit | None:
        image: dict[str, Any] = item["image"] if isinstance(item.get("image"), dict) else {}
        return self.image_hit(
            rank, item.get("link"), page_url=image.get("contextLink"), title=item.get("title"),
            thumbnail_url=image.get("thumbnailLink"), width=image.get("width"), height=image.get("height"),
            source=item.get("displayLink"),
        )  # fmt: skip
