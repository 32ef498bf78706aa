"""SerpApi engine=yandex_images with url= (reverse, by URL): image_results[] (pages with the same image) and
similar_images[] (visual matches). Real captures: shared/data/images/serpapi_yandex_images (three answers).

image_results are Yandex's "sites containing information about the image": exact matches, with the page
(`link`), its `source` site, `original_image.link` (the image as that page has it, with its size) and
`thumbnail.link`. similar_images name a Yandex thumbnail and a Yandex search link whose img_url parameter is the
similar image (no page of its own): visual matches whose page is that link.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import parse_qs, urlsplit

from webreach.images.reverse._base import kept
from webreach.images.reverse._serpapi import SerpApiReverse, items
from webreach.images.reverse.models import ReverseHit


def _link(value: Any) -> Any:
    return value.get("link") if isinstance(value, dict) else None


def _image_in(link: Any) -> str | None:
    """The img_url a Yandex search link names (the similar image itself), if any."""
    if not isinstance(link, str):
        return None
    try:
        values = parse_qs(urlsplit(link).query).get("img_url")
    except ValueError:
        return None
    return values[0] if values else None


def _size(value: Any, key: str) -> Any:
    return value.get(key) if isinstance(value, dict) else None


class SerpApiYandex(SerpApiReverse):
    index = "yandex_images"
    serpapi_engine = "yandex_images"

    def parse(self, data: dict[str, Any]) -> list[ReverseHit]:
        pages = [self._page(rank, item) for rank, item in enumerate(items(data, "image_results"), 1)]
        similar = [
            self.hit(
                rank,
                match="visual",
                title="",
                page_url=item.get("link"),
                image_url=_image_in(item.get("link")),
                thumbnail_url=_link(item.get("image")),
                source="yandex.com",
            )
            for rank, item in enumerate(items(data, "similar_images"), 1)
        ]
        return kept(pages + similar)

    def _page(self, rank: int, item: dict[str, Any]) -> ReverseHit | None:
        original = item.get("original_image")
        return self.hit(
            rank, match="exact", title=item.get("title"), page_url=item.get("link"), image_url=_link(original),
            thumbnail_url=_link(item.get("thumbnail")), source=item.get("source"), width=_size(original, "width"),
            height=_size(original, "height"),
        )  # fmt: skip
