"""Image-search engines over the APIs with real captures: brave_api, serpapi (google_images), google_cse, searxng.

Each image engine wraps the web engine of the same name (engines/), so keys, base URLs (the fake web's included),
enabled flags and the error classification (bad key, quota, rate limit, block, status mapping) are the web
engine's own: `check_response` runs before parsing. Only the request and the parser are image-specific. A hit
needs an image URL; everything else is optional, and a parser bug on hostile input becomes the engine's ParseError.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any, ClassVar

import httpx

from webreach.engines import Engine
from webreach.engines._json import json_object
from webreach.errors import UnavailableError, WebreachError
from webreach.images.hits import ImageHit, ImageSearchRequest, domain

RESOLUTION = re.compile(r"\s*([0-9]{1,6})\s*[x×]\s*([0-9]{1,6})(?![0-9.])")


class ImageEngine(ABC):
    """One engine's image search: request and parser; everything else comes from `web`, the web engine."""

    name: ClassVar[str]
    max_count: ClassVar[int] = 50

    def __init__(self, web: Engine) -> None:
        self.web = web

    @abstractmethod
    def build_request(self, request: ImageSearchRequest) -> httpx.Request:
        """The HTTP request for `request`."""

    @abstractmethod
    def parse(self, data: dict[str, Any]) -> list[ImageHit]:
        """Hits from the engine's JSON answer."""

    def handle(self, response: httpx.Response) -> list[ImageHit]:
        """The web engine's checks (keys, quotas, blocks, statuses), then the image parser."""
        try:
            self.web.check_response(response)
            return self.parse(json_object(response, self.name))
        except WebreachError:
            raise
        except Exception as exc:  # hostile answers must not fail the whole search with a traceback
            raise self.web.unreadable(exc) from None

    def hit(self, rank: int, image_url: Any, **fields: Any) -> ImageHit | None:
        """An ImageHit, or None when the item has no http(s) image URL; numbers that are not ints are dropped."""
        if not isinstance(image_url, str) or not image_url.startswith(("http://", "https://")):
            return None
        for key in ("width", "height"):
            value = fields.get(key)
            fields[key] = value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None
        fields["title"] = str(fields.get("title") or "")
        fields["source"] = fields.get("source") or domain(fields.get("page_url"))
        return ImageHit(rank=rank, image_url=image_url, engine=self.name, **fields)


def _kept(hits: list[ImageHit | None]) -> list[ImageHit]:
    return [hit for hit in hits if hit is not None]


class BraveApiImages(ImageEngine):
    """GET /res/v1/images/search: results[] with properties.url (the image), thumbnail.src and the page url."""

    name = "brave_api"
    max_count = 200  # Brave's cap for images
    SAFE: ClassVar[Mapping[str, str]] = MappingProxyType({"off": "off", "moderate": "strict", "strict": "strict"})

    def build_request(self, request: ImageSearchRequest) -> httpx.Request:
        # Brave's images endpoint knows only off and strict
        params = {"q": request.query, "count": str(min(request.limit, self.max_count)),
                  "safesearch": self.SAFE[request.safesearch]}  # fmt: skip
        headers = {"Accept": "application/json", "X-Subscription-Token": self.web.api_key()}
        return httpx.Request("GET", self.web.url("/res/v1/images/search"), params=params, headers=headers)

    def parse(self, data: dict[str, Any]) -> list[ImageHit]:
        if data.get("type") != "images":
            raise self.web.parse_error(f"expected an images answer, got type {data.get('type')!r}")
        items = [item for item in data.get("results") or [] if isinstance(item, dict)]
        return _kept([self._hit(rank, item) for rank, item in enumerate(items, 1)])

    def _hit(self, rank: int, item: dict[str, Any]) -> ImageHit | None:
        properties = item.get("properties") or {}
        thumbnail = item.get("thumbnail") or {}
        return self.hit(
            rank, properties.get("url"), title=item.get("title"), page_url=item.get("url"),
            thumbnail_url=thumbnail.get("src"), width=properties.get("width") or thumbnail.get("width"),
            height=properties.get("height") or thumbnail.get("height"), source=item.get("source"),
        )  # fmt: skip


class SerpApiImages(ImageEngine):
    """GET /search.json?engine=google_images: images_results[] with original, thumbnail, link and sizes."""

    name = "serpapi"
    max_count = 100

    def build_request(self, request: ImageSearchRequest) -> httpx.Request:
        params = {"engine": "google_images", "q": request.query, "api_key": self.web.api_key(),
                  "safe": "off" if request.safesearch == "off" else "active"}  # fmt: skip
        return httpx.Request("GET", self.web.url("/search.json"), params=params, headers={"Accept": "application/json"})

    def parse(self, data: dict[str, Any]) -> list[ImageHit]:
        if data.get("error"):
            if "hasn't returned any results" in str(data["error"]):
                return []
            raise UnavailableError(f"search failed upstream: {self.web.redact(str(data['error']))}", engine=self.name)
        items = [item for item in data.get("images_results") or [] if isinstance(item, dict)]
        return _kept([self._hit(rank, item) for rank, item in enumerate(items, 1)])

    def _hit(self, rank: int, item: dict[str, Any]) -> ImageHit | None:
        return self.hit(
            rank, item.get("original"), title=item.get("title"), page_url=item.get("link"),
            thumbnail_url=item.get("thumbnail"), width=item.get("original_width"),
            height=item.get("original_height"), source=domain(item.get("link")),
        )  # fmt: skip


class GoogleCseImages(ImageEngine):
    """GET /customsearch/v1?searchType=image: items[] with link (the image) and image{contextLink, sizes}."""

    name = "google_cse"
    max_count = 10  # the API's cap per request

    def build_request(self, request: ImageSearchRequest) -> httpx.Request:
        params = {"q": request.query, "searchType": "image", "num": str(min(request.limit, self.max_count)),
                  "safe": "off" if request.safesearch == "off" else "active"}  # fmt: skip
        cx = self.web.settings.options.get("cx")
        if cx:
            params["cx"] = cx
        headers = {"Accept": "application/json", "X-Goog-Api-Key": self.web.api_key()}
        return httpx.Request("GET", self.web.url("/customsearch/v1"), params=params, headers=headers)

    def parse(self, data: dict[str, Any]) -> list[ImageHit]:
        items = [item for item in data.get("items") or [] if isinstance(item, dict)]
        return _kept([self._hit(rank, item) for rank, item in enumerate(items, 1)])

    def _hit(self, rank: int, item: dict[str, Any]) -> ImageHit | None:
        image = item.get("image") or {}
        return self.hit(
            rank, item.get("link"), title=item.get("title"), page_url=image.get("contextLink"),
            thumbnail_url=image.get("thumbnailLink"), width=image.get("width"), height=image.get("height"),
            source=item.get("displayLink") or domain(image.get("contextLink")),
        )  # fmt: skip


class SearxngImages(ImageEngine):
    """GET /search?format=json&categories=images: results[] with img_src, thumbnail_src, url (the page)."""

    name = "searxng"
    SAFE: ClassVar[Mapping[str, str]] = MappingProxyType({"off": "0", "moderate": "1", "strict": "2"})

    def build_request(self, request: ImageSearchRequest) -> httpx.Request:
        params = {"q": request.query, "format": "json", "categories": "images",
                  "safesearch": self.SAFE[request.safesearch]}  # fmt: skip
        headers = self.web.browser_headers(Accept="application/json")
        return httpx.Request("GET", self.web.url("/search"), params=params, headers=headers)

    def parse(self, data: dict[str, Any]) -> list[ImageHit]:
        items = [item for item in data.get("results") or [] if isinstance(item, dict)]
        images = [item for item in items if item.get("img_src")]
        return _kept([self._hit(rank, item) for rank, item in enumerate(images, 1)])

    def _hit(self, rank: int, item: dict[str, Any]) -> ImageHit | None:
        size = _resolution(item.get("resolution") or item.get("img_format"))
        return self.hit(
            rank, item.get("img_src"), title=item.get("title"), page_url=item.get("url"),
            thumbnail_url=item.get("thumbnail_src") or None, width=size[0], height=size[1],
            source=domain(item.get("url")),
        )  # fmt: skip


def _resolution(value: Any) -> tuple[int | None, int | None]:
    """SearXNG's "1920 x 1080" (resolution) or "2420 x 1613 · jpeg" (img_format of its bing images) as numbers;
    an artwork's "261.7 × 114.2 × 287 cm" is not a pixel size."""
    match = RESOLUTION.match(str(value or ""))
    return (int(match.group(1)), int(match.group(2))) if match else (None, None)


IMAGE_ENGINES: Mapping[str, type[ImageEngine]] = MappingProxyType(
    {cls.name: cls for cls in (BraveApiImages, SerpApiImages, GoogleCseImages, SearxngImages)}
)
